"""Chapter 03's claims on character and word text: decay forms, mismatches to the text, spelling.

Figs. 2, 3b, 3c, 8b and 10b, and App. F, with the text models' readings (their
mismatch over a band of lags, context and cost) that the other text claims share.
Re-exported by :mod:`seqmi.claims.ch03_rnn_transformer_mi`, where the public ones are documented.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
import numpy as np

from seqmi.claims import EQUIVALENCE_MARGIN, MIN_SEEDS, Claim, Design, combine, decide, decide_equivalence
from seqmi.claims.ch03_rnn_transformer_mi._binary_rnn import decide_no_gain
from seqmi.claims.ch03_rnn_transformer_mi._shared import (H1_RHO, HEAD_WORDS_NOTE, INTERMEDIATE_LAGS, MIDDLE_LAGS,
                                                          PAPER_CHAR_CONTEXT, PAPER_WORD_CONTEXT, PERMUTATIONS,
                                                          SHORT_LAGS, SIGNIFICANCE, TEXT_FIT_THRESHOLD,
                                                          TEXT_SUBSTITUTION, Arrays, _diff_ci, _duration, _forms, _hold,
                                                          _mean_ci, _model_n, _pct, _power, _power_text, _scale, _sd,
                                                          _seed_seconds, _seeds, _seeds_for, _text_scale, _tost_power,
                                                          _tost_seeds)
from seqmi.results.ch03_rnn_transformer_mi import Model, Results
from seqmi.stats import MIN_RANK_PAIRS, spearman_ci, spearman_pairs_needed, spearman_permutation_test, spearman_power


# ---------------------------------------------------------------- text: decay forms and mismatches


def decide_text_forms(char_forms: Arrays, word_forms: Arrays) -> str:
    """Fig. 2: every character LSTM's decay form above 0, every word LSTM's below 0 (Student-t 95%)."""
    return combine([decide(_mean_ci(f), 0.0) for f in char_forms]
                   + [decide(_mean_ci(f), 0.0, claim_above=False) for f in word_forms])


def _text_forms(r: Results) -> Claim:
    """Fig. 2: character LSTMs show no power-law tail; word LSTMs follow the power law."""
    s = r.settings
    pts = r.text_points
    char = {w: pts[f"lstm_w{w}_d1"] for w in s.text_lstm_widths if f"lstm_w{w}_d1" in pts}
    word = {w: pts[f"word_lstm_w{w}_d1"] for w in s.word_lstm_widths if f"word_lstm_w{w}_d1" in pts}
    rule = (f"per seed, ln(RSS_power/RSS_exp) of the fits to its samples' I(τ) above {TEXT_FIT_THRESHOLD:g}; "
            "Student-t 95% intervals over the seeds: above 0 (exponential fits better) for every character LSTM and "
            "below 0 for every word LSTM: reproduced; either on the other side: not reproduced")
    cf, wf = {w: _forms(p) for w, p in char.items()}, {w: _forms(p) for w, p in word.items()}
    models = [*char.values(), *word.values()]
    n = _model_n(models)
    scale = _text_scale(r, None)
    if char and word:
        verdict, needs = _hold(r, decide_text_forms(list(cf.values()), list(wf.values())), models)
        if verdict == "inconclusive":
            needs += [f"{k} {w}: {_seeds_for(v, seed_s=_text_seconds(r, [f'{k} {w}×1']))}"
                      for k, group in (("lstm", cf), ("word_lstm", wf))
                      for w, v in group.items() if decide(_mean_ci(v), 0.0) == "inconclusive"]
    else:
        verdict, needs = "inconclusive", ["character and word LSTMs"]
    power = math.prod([_power(1.0, [_sd(v)], n) for v in [*cf.values(), *wf.values()]]) if models else math.nan
    design = Design(
        h1="every character LSTM's samples fit an exponential better (ln(RSS_pow/RSS_exp) > 0), every word LSTM's a "
           "power law (< 0)",
        h0="some character LSTM's power law fits at least as well, or some word LSTM's exponential does",
        test="Student-t 95% interval over the seeds of each model's mean decay form on the right side of 0; every "
             "model must hold",
        unit=f"independently trained seeds ({n} per model)",
        power=_power_text(power, n, "decay forms of ±1 (one model's fit e-fold better) at the recorded spreads"))
    return Claim("shen2019.fig2.char-lstm-no-power-law-tail", "Shen 2019 Sec. 4.2.2, 5.2, Fig. 2a, 2b",
                 "Character-level LSTMs capture no power-law decay (an exponential decay at intermediate distance); "
                 "word-level LSTMs follow the power law", "statistical", None, None, rule, verdict, TEXT_SUBSTITUTION,
                 _scale(scale, verdict, needs),
                 "; ".join(f"{k} {w}: ln(RSS_pow/RSS_exp) ∈ [{_mean_ci(v)[0]:+.2f}, {_mean_ci(v)[1]:+.2f}]"
                           for k, group in (("lstm", cf), ("word_lstm", wf)) for w, v in group.items()), design)


def _text_model(r: Results, name: str) -> Model:
    """The record of the text model ``"kind W×D"``."""
    kind, shape = name.split(" ")
    width, depth = shape.split("×")
    return r.text_points[f"{kind}_w{width}_d{depth}"]


def _text_seconds(r: Results, names: Sequence[str]) -> float:
    """Recorded core-seconds of one more seed of each text model ``names``.

    An epoch is the training text, or its tokens for a word model.
    """
    total = 0.0
    for name in names:
        tokens = (r.word_vocab.train_tokens if name.startswith("word")
                  else r.settings.text_train_chars or r.train_split_chars)
        total += _seed_seconds(_text_model(r, name), float(tokens))
    return total


def _lag_gaps(r: Results, name: str, lags: tuple[int, int]) -> np.ndarray:
    """Per seed of text model ``name``, its mismatch ``mean |Δ ln I|`` over ``lags`` (inclusive).

    Each seed's recorded curve is its first sample set's, compared with the first
    same-size sample of the training text (as the chapter's :func:`set_gaps` pairs them;
    word models against the text as they see it).
    """
    ref = np.asarray(r.word_corpus_small_mi if name.startswith("word") else r.corpus_small_mi, dtype=float)
    tau = np.arange(1, ref.size + 1)
    keep = (tau >= lags[0]) & (tau <= lags[1]) & (ref > 0)
    out = []
    for s in _seeds(_text_model(r, name)):
        # the chapter's curve_gap (seqmi.experiments.ch03_rnn_transformer_mi, which imports torch; a test pins the
        # two together): lags where both curves are positive, the estimator dipping below 0 at its floor
        mi = np.asarray(s.mi, dtype=float)
        use = keep & (mi > 0)
        out.append(float(np.abs(np.log(mi[use]) - np.log(ref[use])).mean()) if use.any() else math.nan)
    return np.array(out, dtype=float)


def _context(r: Results, name: str) -> int:
    """The context a text Transformer reads: after a row longer than it, its key/value cache holds
    ``2·depth·width·context`` floats (the recorded ``state_floats``)."""
    kind, shape = name.split(" ")
    width, depth = (int(v) for v in shape.split("×"))
    return int(_text_model(r, name).state_floats // (2 * depth * width))


def _short_context(r: Results, name: str) -> str:
    """Why a Transformer cannot speak for the paper's ("" if it reads the paper's context)."""
    if "transformer" not in name:
        return ""
    paper = PAPER_WORD_CONTEXT if name.startswith("word") else PAPER_CHAR_CONTEXT
    unit = "tokens" if name.startswith("word") else "characters"
    ctx = _context(r, name)
    return "" if ctx >= paper else f"{name} reads {ctx} {unit}, Shen's {paper}"


def _context_cost(r: Results, names: Sequence[str]) -> str:
    """Core-hours to train and sample the character Transformers ``names`` at Shen's context.

    The recorded epochs, throughput and sampling, scaled by the work per token: about
    ``6·parameters`` for the matrix products and ``12·depth·width·context`` for attention.
    """
    total = 0.0
    for name in names:
        p = _text_model(r, name)
        width, depth = (int(v) for v in name.split(" ")[1].split("×"))
        ctx = _context(r, name)
        work = 6 * p.params
        factor = (work + 12 * depth * width * PAPER_CHAR_CONTEXT) / (work + 12 * depth * width * ctx)
        chars = r.settings.text_train_chars or r.train_split_chars
        total += len(_seeds(p)) * _seed_seconds(p, chars, factor)
    return (f"the character Transformers ({', '.join(names)}) retrained with Shen's {PAPER_CHAR_CONTEXT}-character "
            f"context: {_duration(total)} for their {_model_n([_text_model(r, n) for n in names])} seeds each (recorded "
            "epochs, throughput and sampling, scaled by the work per token at that context)")


def decide_gaps(pairs: Sequence[tuple[np.ndarray, np.ndarray]], positive: bool,
                held: Sequence[bool]) -> tuple[str, list[list[float]], list[str]]:
    """Text superiority claims: every pair's mismatch difference ``a - b`` above 0 (Welch 95%).

    Below 0 with ``positive=False``. A pair ``held`` (a model that cannot speak for the
    paper's, as a Transformer short of Shen's context) is inconclusive whatever its interval.
    Returns the verdict, each pair's interval and each pair's verdict.
    """
    cis = [_diff_ci(a, b) for a, b in pairs]
    parts = ["inconclusive" if h else decide(ci, 0.0, claim_above=positive) for ci, h in zip(cis, held)]
    return combine(parts), cis, parts


def _gap_design(r: Results, pairs: dict[str, tuple[np.ndarray, np.ndarray]], h1: str, h0: str,
                lags: tuple[int, int], held: Sequence[str]) -> Design:
    n = min((min(len(a), len(b)) for a, b in pairs.values()), default=0)
    effect = r.gap_null
    power = math.prod(_power(effect, [_sd(a), _sd(b)], n) for a, b in pairs.values()) if pairs else math.nan
    against = f"a mismatch lower by {effect:.2f} (two same-size samples of the text differ by that much) at the " \
              "recorded spreads"
    text = _power_text(power, n, against)
    if held:
        text = (f"0 at this run's scale: {'; '.join(held)}, so no verdict is read from those pairs; at Shen's context "
                f"and the recorded spreads, {text}")
    return Design(h1=h1, h0=h0,
                  test=f"per pair, Welch 95% interval of the difference of the two models' mean mismatch "
                       f"mean |Δ ln I(τ = {lags[0]}–{lags[1]})| over their seeds; every pair must hold",
                  unit=f"independently trained seeds ({n} per model), each scored on its first sample set",
                  power=text)


def _gap_claim(r: Results, cid: str, source: str, statement: str, rule: str, lags: tuple[int, int],
               names: dict[str, tuple[str, str]], positive: bool, h1: str, h0: str, detail: str) -> Claim:
    """A text superiority claim on mismatch differences ``a − b`` over ``lags``, each a Welch interval over seeds."""
    pairs = {name: (_lag_gaps(r, a, lags), _lag_gaps(r, b, lags)) for name, (a, b) in names.items()}
    short = {name: [why for why in (_short_context(r, a), _short_context(r, b)) if why]
             for name, (a, b) in names.items()}
    raw, cis, parts = decide_gaps(list(pairs.values()), positive, [bool(v) for v in short.values()])
    models = [_text_model(r, key) for pair in names.values() for key in pair]
    verdict, needs = _hold(r, raw, models)
    if verdict == "inconclusive":
        held = sorted({m for pair in names.values() for m in pair if _short_context(r, m)})
        if [m for m in held if not m.startswith("word")]:
            needs.append(_context_cost(r, [m for m in held if not m.startswith("word")]))
        if [m for m in held if m.startswith("word")]:
            needs.append(f"the word Transformers retrained with Shen's {PAPER_WORD_CONTEXT}-token context")
        needs += [f"{name}: {_seeds_for(*pairs[name], seed_s=_text_seconds(r, names[name]))}"
                  for name, part in zip(names, parts) if part == "inconclusive" and not short[name]]
    measured = "; ".join(
        f"{name}: {pairs[name][0].mean() - pairs[name][1].mean():+.2f} [{ci[0]:+.2f}, {ci[1]:+.2f}] (seeds "
        f"{'/'.join(f'{v:.2f}' for v in pairs[name][0])} vs {'/'.join(f'{v:.2f}' for v in pairs[name][1])})"
        + (f", held back: {'; '.join(short[name])}" if short[name] else "") for name, ci in zip(names, cis))
    return Claim(cid, source, statement, "statistical", None, None, rule, verdict, TEXT_SUBSTITUTION,
                 _scale(_text_scale(r, lags), verdict, needs),
                 f"{detail}; difference of mean |Δ ln I(τ = {lags[0]}–{lags[1]})| (95% interval over seeds) {measured}; "
                 f"two disjoint samples of the text differ by {r.gap_null:.2f}",
                 _gap_design(r, pairs, h1, h0, lags, sorted({why for v in short.values() for why in v})))


def _depth_pairs(r: Results, family: str) -> dict[str, tuple[str, str]]:
    """The depth comparisons of a family (``"lstm"`` matches character and word LSTMs): shallow, deep.

    Named ``"kind W×A→B"``: model ``"kind W×A"`` against ``"kind W×B"``.
    """
    names = r.depth_pairs
    pairs = {}
    for name in names:
        head, depths = name.split("×")
        shallow, deep = depths.split("→")
        pairs[name] = (f"{head}×{shallow}", f"{head}×{deep}")
    return {name: pair for name, pair in pairs.items() if family in name}


def _lstm_depth_text(r: Results, band: str) -> Claim:
    """Fig. 8b: a deeper LSTM's mismatch within the margin of the shallow one's (two one-sided tests)."""
    lags = MIDDLE_LAGS
    names = _depth_pairs(r, "lstm")
    pairs = {name: (_lag_gaps(r, a, lags), _lag_gaps(r, b, lags)) for name, (a, b) in names.items()}
    models = [_text_model(r, key) for pair in names.values() for key in pair]
    if pairs:
        raw, rel = decide_no_gain(list(pairs.values()))
        verdict, needs = _hold(r, raw, models)
    else:
        raw, rel, verdict, needs = "inconclusive", [], "inconclusive", ["LSTMs of two depths"]
    if verdict == "inconclusive" and pairs:
        needs += [f"{name}: {_tost_seeds(pairs[name][1], pairs[name][0], seed_s=_text_seconds(r, names[name]))}"
                  for name, (_, ci) in zip(pairs, rel) if decide_equivalence(ci) == "inconclusive"]
    n = min((min(len(a), len(b)) for a, b in pairs.values()), default=0)
    design = Design(
        h1=f"every deeper LSTM's mean mismatch over τ = {lags[0]}–{lags[1]} within ±{EQUIVALENCE_MARGIN:.0%} of the "
           "shallow one's (depth does not improve it significantly)",
        h0=f"depth changes some LSTM's mean mismatch by at least {EQUIVALENCE_MARGIN:.0%}",
        test="two one-sided tests on the 90% interval of the relative difference of mismatch (the seeds' geometric "
             "means: Welch's interval of the difference of mean ln mismatch); every pair must hold",
        unit=f"independently trained seeds ({n} per model), each scored on its first sample set",
        power=_power_text(math.prod(_tost_power([_sd(np.log(a)), _sd(np.log(b))], n) for a, b in pairs.values())
                          if pairs else math.nan, n, "equal mismatches"),
        margin=f"±{EQUIVALENCE_MARGIN:.0%} relative difference of mean mismatch (the book's one margin)")
    return Claim("shen2019.fig8b.lstm-depth-no-gain", "Shen 2019 App. E.1.2, Fig. 8b",
                 "LSTM depth does not help: going deeper does not bring the curve closer to the text's", "statistical",
                 None, None,
                 band + f"every deeper LSTM's mean mismatch relative to the shallow one's: 90% interval inside "
                 f"±{EQUIVALENCE_MARGIN:.0%} (two one-sided tests): reproduced; one wholly outside: not reproduced",
                 verdict, TEXT_SUBSTITUTION, _scale(_text_scale(r, lags), verdict, needs),
                 "; ".join(f"{name}: deep relative to shallow {change:+.1%}, 90% interval {_pct(ci)} (seeds "
                           f"{'/'.join(f'{v:.2f}' for v in pairs[name][0])} vs "
                           f"{'/'.join(f'{v:.2f}' for v in pairs[name][1])})" for name, (change, ci) in zip(pairs, rel))
                 + f"; two disjoint samples of the text differ by {r.gap_null:.2f}", design)


def _text(r: Results) -> list[Claim]:
    s, pts = r.settings, r.text_points
    same_w = [w for w in s.text_lstm_widths if f"lstm_w{w}_d1" in pts and f"transformer_w{w}_d1" in pts]
    word_pairs = [(k, w)
                  for k, ws in (("word_lstm", s.word_lstm_widths), ("word_transformer", s.word_transformer_widths))
                  for w in ws if f"{k}_w{w}_d1" in pts and f"lstm_w{w}_d1" in pts]
    band = (f"per seed ({s.seeds} independently trained models per configuration), the mismatch "
            "mean |Δ ln I| of its first sample set to a same-size sample of the training text over the lags the "
            "statement names; decided only when every seed converged and every Transformer reads Shen's context "
            f"({PAPER_CHAR_CONTEXT} characters, {PAPER_WORD_CONTEXT} tokens); ")
    return [
        _gap_claim(r, "shen2019.fig3b.char-transformer-beats-lstm", "Shen 2019 Sec. 5.2, Fig. 2a vs 3b",
                   "Character-level Transformers track the text's MI better than LSTMs of equal width",
                   band + f"τ = {MIDDLE_LAGS[0]}–{MIDDLE_LAGS[1]} (Sec. 5.2: 'both short and intermediate mutual "
                   "information'); reproduced when the LSTM's mismatch minus the Transformer's is above 0 (Welch 95%) "
                   "at every width", MIDDLE_LAGS,
                   {f"width {w}": (f"lstm {w}×1", f"transformer {w}×1") for w in same_w}, True,
                   "the character Transformer's mismatch below the LSTM's of the same width, at every width",
                   "no difference at some width", "mismatch = mean |Δ ln I|; a positive difference favours the "
                   "Transformer"),
        _gap_claim(r, "shen2019.fig3c.word-beats-char-intermediate", "Shen 2019 Sec. 4.2.2, 5.2, App. E.1.2, Fig. 2, 3c, 8a",
                   "Word-level models capture the intermediate-range MI better than character-level LSTMs of the same width",
                   band + f"τ = {INTERMEDIATE_LAGS[0]}–{INTERMEDIATE_LAGS[1]} (Sec. 4.2.2: between the word level, "
                   "τ ≲ 10, and the paragraph level, τ ≳ 50); reproduced when the character LSTM's mismatch minus the "
                   "word model's is above 0 (Welch 95%) for every pair", INTERMEDIATE_LAGS,
                   {f"{k} {w}": (f"lstm {w}×1", f"{k} {w}×1") for k, w in word_pairs}, True,
                   "every word model's intermediate-range mismatch below the character LSTM's of its width",
                   "no difference for some pair", "a positive difference favours the word model"),
        _lstm_depth_text(r, band + f"τ = {MIDDLE_LAGS[0]}–{MIDDLE_LAGS[1]} (Fig. 8: 'features up to τ ≲ 50'); "),
        _gap_claim(r, "shen2019.fig10b.transformer-depth-gain", "Shen 2019 Sec. 5.2, App. E.2.2, Fig. 10b",
                   "Deeper Transformers do better: going deeper brings the curve closer to the text's",
                   band + f"τ = {MIDDLE_LAGS[0]}–{MIDDLE_LAGS[1]} (Fig. 10: 'features up to τ ≲ 50'); reproduced "
                   "when every Transformer depth gain (the shallow model's mismatch minus the deep one's, Welch 95%) "
                   "is above 0", MIDDLE_LAGS, _depth_pairs(r, "transformer"), True,
                   "every deeper Transformer's mismatch below the shallow one's", "no difference for some pair",
                   "gain = the shallow model's mismatch minus the deep one's"),
    ]


# ---------------------------------------------------------------- App. F: MI and text quality


def decide_rank_link(gaps: np.ndarray, spelled: np.ndarray) -> tuple[str, float, float, float]:
    """App. F: better-spelled seeds where the short-range mismatch is smaller (Spearman's ρ < 0).

    A permutation test (:func:`seqmi.stats.rank.spearman_permutation_test`, exact up to 6
    seeds, else ``PERMUTATIONS`` drawn with a fixed seed): ρ < 0 at one-sided
    ``SIGNIFICANCE``: reproduced; ρ > 0 at that level: not reproduced; otherwise
    inconclusive. Returns the verdict, ρ and the two p-values.
    """
    rho, p_less, p_greater = spearman_permutation_test(gaps, spelled, PERMUTATIONS)
    verdict = ("reproduced" if p_less <= SIGNIFICANCE else "not reproduced" if p_greater <= SIGNIFICANCE
               else "inconclusive")
    return verdict, rho, p_less, p_greater


def _rank_seeds(rho: float, n_now: int, seed_s: float) -> str:
    """Seeds for a one-sided 5% test of a Spearman ρ of this size at power 0.8 (Fisher's z).

    The count is :func:`seqmi.stats.rank.spearman_pairs_needed`'s, at the variance 1.06/(n-3).

    ``seed_s``: the recorded core-seconds of one more character-model seed (their mean).
    """
    if not (math.isfinite(rho) and rho != 0):
        return "no seed count at a correlation of 0"
    # a perfect rank correlation of a few seeds is no effect size
    n = spearman_pairs_needed(min(abs(rho), 0.99), alpha=SIGNIFICANCE, power=0.8)
    cost = f", {_duration(max(n - n_now, 0) * seed_s)} beyond this run's" if math.isfinite(seed_s) else ""
    return f"≈ {n} character-model seeds for power 0.8 at ρ = {rho:+.2f} (this run: {n_now}{cost})"


def _text_quality(r: Results) -> Claim:
    claim = ("shen2019.appF.mi-shows-in-text-quality", "Shen 2019 Sec. 5.2, App. F",
             "The MI profile shows in the quality of the generated text: character models whose short-range MI "
             "tracks the text's write better-spelled text", "statistical")
    lags = SHORT_LAGS
    rule = (f"over every seed of every character model: Spearman's ρ between the seed's mismatch mean |Δ ln I(τ = "
            f"{lags[0]}–{lags[1]})| (Sec. 5.2: 'short-range mutual information is connected to the ability of spelling "
            "words correctly') and the fraction of its passage's words found in the training text; a permutation "
            f"test, one-sided at {SIGNIFICANCE:.0%}: ρ < 0: reproduced; ρ > 0: not reproduced; every model with "
            f"≥ {MIN_SEEDS} seeds, every seed converged")
    spelling = r.spelling
    scale = _text_scale(r, lags) + f"; {HEAD_WORDS_NOTE}"
    design = Design(
        h1="seeds whose short-range MI tracks the text's more closely spell more words right (ρ < 0)",
        h0="no association between the mismatch and the spelling (every pairing equally likely)",
        test=f"Spearman's ρ over the seeds, permutation null (exact up to 6 seeds, else {PERMUTATIONS} permutations "
             f"with a fixed seed), one-sided at {SIGNIFICANCE:.0%}",
        unit="independently trained character-model seeds (each a passage and a curve)",
        power="not computable: no spelling recorded")
    if not spelling:  # no character model's passages scored
        return Claim(*claim, None, None, rule, "inconclusive", TEXT_SUBSTITUTION,
                     _scale(scale, "inconclusive", ["the spelling of the passages (not measured in this recording)"]),
                     "no spelling recorded", design)
    gaps = np.concatenate([_lag_gaps(r, name, lags) for name in spelling])
    spelled = np.concatenate([np.asarray(v, dtype=float) for v in spelling.values()])
    keep = np.isfinite(gaps) & np.isfinite(spelled)
    n = int(keep.sum())
    models = [_text_model(r, name) for name in spelling]
    raw, rho, p_less, p_greater = (decide_rank_link(gaps[keep], spelled[keep]) if n >= MIN_RANK_PAIRS
                                   else ("inconclusive", math.nan, 1.0, 1.0))
    verdict, needs = _hold(r, raw, models)
    if verdict == "inconclusive":
        needs.append(_rank_seeds(rho, n, _text_seconds(r, list(spelling)) / len(spelling)))
    power = spearman_power(H1_RHO, n, SIGNIFICANCE)
    design = Design(h1=design.h1, h0=design.h0, test=design.test, unit=design.unit + f" ({n})",
                    power=f"{n} seeds: power ≈ {power:.2f} against ρ = {H1_RHO:+.1f} (Fisher's z; simulated "
                          "on the calibration page)")
    # the interval shows ρ's spread over so few seeds (Fisher's z); the permutation test decides
    ci = spearman_ci(rho, n) if n > 3 and math.isfinite(rho) else None
    return Claim(*claim, rho, ci, rule, verdict, TEXT_SUBSTITUTION, _scale(scale, verdict, needs),
                 f"ρ = {rho:+.2f} over {n} seeds, permutation p = {p_less:.3f} (ρ < 0) and {p_greater:.3f} (ρ > 0); "
                 + "; ".join(f"{name}: spelled {np.nanmean(v):.0%}, mean |Δ ln I(τ ≤ {lags[1]})| "
                             f"{_lag_gaps(r, name, lags).mean():.2f}" for name, v in spelling.items()), design)
