"""Chapter 04's claims on text.

The growth of its bipartite MI (Fig. 2(b, c), App. A.II, A.III, A.V, A.VI), and the decay of
its two-point MI, the KJV's and a pretrained model's samples'.
"""

from __future__ import annotations

import math

import numpy as np

from seqmi.claims import Claim, Design, combine, decide, illustration, would_decide
from seqmi.claims.ch04_bipartite_mi_l2m._common import (H1_BETA, H1_EXPONENT_GAP, H1_LZMA_GAP, Curve, _curve, _docs,
                                                        _equal_split_curves, _generated_curve, _lzma_pairs,
                                                        _text_models, _unequal_split_curves)
from seqmi.claims.ch04_bipartite_mi_l2m._decisions import (_amplitude, _decide_decay, _decide_exponent_gaps,
                                                           _decide_growth, _decide_growths, _usable)
from seqmi.data.text import KJV_CHAPTERS
from seqmi.results.ch04_bipartite_mi_l2m import Results
from seqmi.stats import GROWTH_GRID, Z95, DecayForm, growth_power, growth_profile, log_slope, needed_for_interval

TEXT = "KJV Bible chapters instead of PG19"
SMOL = "SmolLM2-135M-Instruct (Q4_1) instead of GPT-2 / LLaMA-405B"
CHAR = "a character Transformer of the chapter's size instead of GPT-2"
TWO_POINT = ("KJV instead of PG19/WikiText; seqmi uses the pair's own marginals, L2M's code the corpus 1-gram "
             "marginals (they differ by O(τ/N))")

# the likelihood-ratio statistic at which a one-degree-of-freedom test at 5% has 80% power
LR_FOR_POWER_80 = 7.85


def _growth_str(name: str, curve: Curve | None) -> str:
    """One curve's growth profile and its log-log slope (L2M's exponent), for a claim's detail."""
    verdict, prof = ("inconclusive", None) if curve is None else _decide_growth(curve)
    if prof is None:
        return f"{name}: no fit (needs finite errors at ≥ 4 lengths)"
    lr = (prof.chi2_log - prof.chi2) / prof.scale
    try:
        slope, se = log_slope(*curve)
        loglog = f", log-log slope {slope:.2f} ± {Z95 * se:.2f}"
    except ValueError:
        loglog = ""
    edge = " (±3: the grid's edge, unbounded)" if max(abs(v) for v in prof.ci) >= GROWTH_GRID[-1] else ""
    return (f"{name}: β = {prof.beta:.2f} [{prof.ci[0]:.2f}, {prof.ci[1]:.2f}]{edge}, likelihood ratio against "
            f"a ln L + c {lr:.1f}{loglog} ({verdict})")


def _chapters_to_decide(curve: Curve | None, n_docs: int) -> int | None:
    """Chapters per length at which the growth profile of ``curve`` would reject the boundary
    its interval still holds (0, else 1) with 80% power, were its curve the truth.

    The likelihood-ratio statistic is a noncentrality that grows in proportion to the
    chapters (the errors fall as 1/√n); ``None`` without a profile or with no evidence
    either way (a statistic of 0: no number of chapters separates the forms).
    """
    if curve is None or not _usable(curve):
        return None
    prof = growth_profile(*curve)
    lengths, mi, se = curve
    w = 1.0 / se**2
    stats_at = []
    for boundary in (0.0, 1.0):
        if prof.ci[0] <= boundary <= prof.ci[1]:
            # the chi-square of the best curve of that exponent, against the best of all
            f = (np.log(lengths) if boundary == 0 else lengths)
            X = np.stack([f, np.ones_like(f)], axis=1)
            coef = np.linalg.lstsq(X * np.sqrt(w)[:, None], mi * np.sqrt(w), rcond=None)[0]
            stats_at.append(((w * (mi - X @ coef) ** 2).sum() - prof.chi2) / prof.scale)
    if not stats_at or min(stats_at) <= 0:
        return None
    return max(n_docs + 1, math.ceil(n_docs * LR_FOR_POWER_80 / min(stats_at)))


def _growth_need(curves: dict[str, Curve | None], n_docs: int, unit: str) -> str:
    """What would decide inconclusive growth claims: chapters per length, or the statement
    that no number of chapters does at these lengths."""
    needs = [_chapters_to_decide(c, n_docs) for c in curves.values()
             if c is not None and _decide_growth(c)[0] == "inconclusive"]
    if needs and all(n is not None for n in needs):
        beyond = (f", more than the KJV's {KJV_CHAPTERS:,}: only longer L or a better q can"
                  if max(needs) > KJV_CHAPTERS else ", or longer L")
        return would_decide(f"≈ {max(needs):,} {unit} per length (80% power for the boundary the interval still "
                            f"holds, were the fitted curves true){beyond}")
    return would_decide("longer L or a better q: at these lengths the estimates hold no evidence either way "
                        "between a power law and logarithmic growth")


def _growth_power_text(curves: dict[str, Curve | None], n_docs: int) -> str:
    """The declared power of a growth claim, and which lengths would separate the forms."""
    curve = next((c for c in curves.values() if c is not None and _usable(c)), None)
    if curve is None:
        return "no curve with finite errors at ≥ 4 lengths recorded"
    lengths, _, se = curve
    powers = {b: growth_power(lengths, se, _amplitude(curve, b), b) for b in (H1_BETA, 0.2)}
    text = (f"{n_docs} chapters at L = {lengths[0]:.0f}..{lengths[-1]:.0f}: {powers[H1_BETA]:.2f} against "
            f"A L^{H1_BETA} and {powers[0.2]:.2f} against A L^0.2 (A matched to the recorded level, the recorded "
            "errors; calibration)")
    if powers[0.2] < 0.8:
        # the errors grow with L as the recorded ones do; doubling lengths beyond the last
        g = float(np.polyfit(np.log(lengths), np.log(se), 1)[0])
        for k in range(1, 9):
            longer = np.concatenate([lengths, lengths[-1] * 2.0 ** np.arange(1, k + 1)])
            errs = se[-1] * (longer / lengths[-1]) ** g
            errs[: lengths.size] = se
            if growth_power(longer, errs, _amplitude(curve, 0.2), 0.2) >= 0.8:
                text += (f"; A L^0.2 is told from logarithmic growth at 80% power with L up to {longer[-1]:.0f} "
                         f"(errors extrapolated as L^{g:.2f})")
                break
    return text


def _weaker_model(verdict: str, scale: str) -> tuple[str, str]:
    """A growth verdict from a model weaker than the paper's: it can support the power law, never refute it.

    The model-based estimates measure the bipartite MI through the model's conditionals; a
    smaller model misses structure at long range, so its curve may flatten where the text's
    does not (L2M's own estimates come from GPT-2 and LLaMA-405B). A rising curve is
    evidence for growth; a flat one is evidence about the model, and is inconclusive.
    """
    if verdict != "not reproduced":
        return verdict, scale
    return "inconclusive", scale + "; " + would_decide(
        "a model at least as strong as the paper's (GPT-2 or larger): the growth this weaker model "
        "rejects may be the text's structure it misses")


GROWTH_TEST = ("profile likelihood of β in I(L) = a (L^β − 1)/β + c (β = 0: a ln L + c), weighted least squares "
               "with the per-length standard errors over chapters (Gaussian, independent between lengths: the "
               "same chapters serve every length, a correlation the recorded means cannot show), the ratio divided "
               "by Birge's χ²/(n − 3) where the curve scatters more; 95% interval inside (0, 1)")


def _text_claims(r: Results) -> list[Claim]:
    out = []
    models = _text_models(r)
    for m, slug in models:
        sub = f"{TEXT}; " + (CHAR if slug == "char" else SMOL)
        curves = _equal_split_curves(r, m)
        n_docs = _docs(r, m)
        lengths = r.text_bipartite[f"{m}/direct"].lengths
        scale = f"{r.profile}: L = {lengths[0]}..{lengths[-1]} tokens, {n_docs} held-out chapters"
        verdict = _decide_growths([c for c in curves.values() if c is not None]) \
            if None not in curves.values() else "inconclusive"
        verdict, weaker = _weaker_model(verdict, "")
        head = None if curves["direct"] is None else _decide_growth(curves["direct"])[1]
        growth_design = Design(
            h1="the bipartite MI of text grows as a power law, 0 < β < 1 (L2M Fig. 2(b, c))",
            h0="logarithmic growth a ln L + c (β = 0: the growth of the exact logarithmic Gaussian family, Fig. "
               "3(b)), or growth at least linear (β ≥ 1)",
            test=GROWTH_TEST + ", for both estimators",
            unit=f"held-out chapters ({n_docs}: each length's mean and standard error are over them)",
            power=_growth_power_text(curves, n_docs))
        out.append(Claim(
            f"chen2025.fig2bc.text-sublinear.{slug}", "Chen et al. 2025 Fig. 2(b, c), eqs. 6-7",
            f"Bipartite MI of text grows as L^beta, 0 < beta < 1, rather than logarithmically (q = {m}, direct "
            "with 2-gram correction and vCLUB)", "statistical", None if head is None else head.beta,
            None if head is None else head.ci,
            "both estimators' 95% profile intervals of β (in a (L^β − 1)/β + c, which holds logarithmic growth at "
            "β = 0) inside (0, 1) with the curve rising; one wholly outside: not reproduced",
            verdict, sub, scale + (weaker or ("; " + _growth_need(curves, n_docs, "chapters")
                                              if verdict == "inconclusive" else "")),
            "; ".join(_growth_str(est, c) for est, c in curves.items()), design=growth_design))
        # vCLUB below direct: L2M's log-log exponents compared
        verdict, (gap,) = _decide_exponent_gaps([(curves["direct"], curves["vclub"])]) \
            if None not in curves.values() else ("inconclusive", (None,))
        sc = scale
        if verdict == "inconclusive":
            need = None if gap is None else needed_for_interval(n_docs, (gap[1][1] - gap[1][0]) / 2, gap[0])
            sc += "; " + would_decide(
                "a fit needs three positive estimates per estimator" if need is None else
                f"≈ {need:,} chapters per length" + (f", more than the KJV's {KJV_CHAPTERS:,}: the two exponents "
                                                     "agree at these lengths" if need > KJV_CHAPTERS else ""))
        out.append(Claim(
            f"chen2025.appA6.vclub-below-direct.{slug}", "Chen et al. 2025 App. A.VI",
            f"vCLUB's exponent is below the direct estimator's (q = {m})", "statistical",
            None if gap is None else gap[0], None if gap is None else gap[1],
            "β_direct − β_vCLUB of the weighted log-log slopes (L2M's exponents; per-length errors over chapters, "
            "Birge-scaled), the two standard errors added in quadrature: 95% interval above 0", verdict, sub, sc,
            "; ".join(_growth_str(est, c) for est, c in curves.items()),
            design=Design(h1="β_vCLUB < β_direct (vCLUB has the larger bias, App. A.VI)",
                          h0="equal exponents",
                          test="difference of the weighted log-log slopes, normal 95% interval; the two estimators "
                               "share chapters (positively correlated), so adding the variances is conservative",
                          unit=f"held-out chapters ({n_docs})",
                          power=f"{n_docs} chapters: see the calibration (a gap of {H1_EXPONENT_GAP}, recorded "
                                "errors)")))
        rel = r.two_gram_relative_change[m]
        out.append(Claim(f"chen2025.appA3.two-gram-correction.{slug}", "Chen et al. 2025 App. A.III, Fig. A.1",
                         f"The 2-gram correction mostly matters at small L (q = {m})", "illustration", rel[0], None,
                         "illustration: the correction changes the entropies of the two tokens at the cut, so its "
                         "share of I_bp shrinks with L by construction; it shows the estimator, not the paper's data",
                         illustration(rel[0] > rel[-1]), sub, scale,
                         f"relative change {rel[0]:.2f} at L = {lengths[0]}, {rel[-1]:.2f} at L = {lengths[-1]}"))
    for m, slug in models:
        curves = _unequal_split_curves(r, m)
        n_docs = _docs(r, m)
        verdict = _decide_growths([c for c in curves.values() if c is not None]) \
            if curves and None not in curves.values() else "inconclusive"
        verdict, weaker = _weaker_model(verdict, "")
        scale = f"{r.profile}: {n_docs} held-out chapters"
        out.append(Claim(
            f"chen2025.appA5.text-unequal-splits.{slug}", "Chen et al. 2025 App. A.V",
            f"Bipartite MI of text grows as L^beta, 0 < beta < 1, at unequal splits too (q = {m})",
            "statistical", None, None,
            "every unequal split's 95% profile interval of β inside (0, 1), both estimators (the equal split's rule)",
            verdict, f"{TEXT}; " + (CHAR if slug == "char" else SMOL),
            scale + (weaker or ("; " + _growth_need(curves, n_docs, "chapters") if verdict == "inconclusive"
                                else "")),
            "; ".join(_growth_str(name, c) for name, c in curves.items()),
            design=Design(h1="a power law 0 < β < 1 at every split ratio L/ℓ (App. A.V)",
                          h0="logarithmic (or at least linear) growth at some ratio",
                          test=GROWTH_TEST + ", for every ratio and estimator",
                          unit=f"held-out chapters ({n_docs})", power=_growth_power_text(curves, n_docs))))
    pairs = _lzma_pairs(r)
    usable = {m: p for m, p in pairs.items() if None not in p}
    verdict, gaps = _decide_exponent_gaps(list(usable.values())) if usable else ("inconclusive", [])
    if len(usable) < len(pairs):
        verdict = combine([verdict, "inconclusive"])
    gap_by = dict(zip(usable, gaps))
    decisive = min((g for g in gaps if g is not None), key=lambda g: g[1][0], default=None)
    lz_curve = _curve(r.text_bipartite.get("lzma/compression"))
    lz_len = [] if lz_curve is None else lz_curve[0]
    sc = (f"{r.profile}: lzma on L = {lz_len[0]:.0f}..{lz_len[-1]:.0f} characters" if len(lz_len) else
          f"{r.profile}: no lzma curve")
    if verdict == "inconclusive":
        need = [needed_for_interval(_docs(r, m), (g[1][1] - g[1][0]) / 2, g[0]) for m, g in gap_by.items()
                if g is not None and decide(g[1], 0.0) == "inconclusive"]
        sc += "; " + would_decide(f"≈ {max(need):,} chapters per length" if need else
                                  "lzma and model curves with three positive estimates each")
    out.append(Claim(
        "chen2025.appA2.lzma-overestimates", "Chen et al. 2025 App. A.II",
        "Compression (lzma) overestimates the exponent of the model-based estimates", "statistical",
        None if decisive is None else decisive[0], None if decisive is None else decisive[1],
        "β_lzma − β_model of the weighted log-log slopes (per-length errors over chapters, Birge-scaled), 95% "
        "interval above 0 for every model's direct estimate; the smallest difference is the value",
        verdict, TEXT, sc,
        "; ".join(f"lzma − {m}: " + ("no fit" if g is None else f"{g[0]:.2f} [{g[1][0]:.2f}, {g[1][1]:.2f}]")
                  for m, g in gap_by.items()),
        design=Design(h1="the lzma exponent above every model-based one (compressor inefficiency grows with L)",
                      h0="the lzma exponent equal to a model's",
                      test="difference of the weighted log-log slopes, normal 95% interval per model",
                      unit="held-out chapters (lzma's lengths in characters, SmolLM2's in tokens: an exponent "
                           "does not depend on the unit of L)",
                      power=f"see the calibration (an lzma exponent {H1_LZMA_GAP} above the largest model's, "
                            "recorded errors)")))
    return out


DECAY_TEST = ("mean per-distance log-likelihood ratio of the offset power law A d^−α + C against the offset "
              "exponential A e^(−d/ξ) + C (both fitted as L2M fits the first: least squares of ln(I − C), C "
              "profiled in [0, min I)), Student-t 95% interval over 10 contiguous ranges of distance (batch "
              "means: neighbouring distances share the text's counts); above 0 with α > 0")


def _decay_str(form: DecayForm | None) -> str:
    if form is None:
        return "no fit (fewer than 20 positive distances)"
    return (f"log-likelihood ratio {form.llr:.3f} [{form.ci[0]:.3f}, {form.ci[1]:.3f}] per distance; power law "
            f"α = {form.alpha:.3f}, C = {form.offset:.1e}; exponential ξ = {form.xi:.1f}, C = {form.offset_exp:.1e}")


def _two_point_claim(r: Results) -> Claim:
    tp = r.text_two_point
    lags = np.asarray(tp.lags, dtype=float)
    verdict, form = _decide_decay(tp.mi, tp.min_lag)
    scale = f"{r.profile}: {tp.chars:,} KJV characters, d = {tp.min_lag}..{int(lags.max())}"
    alpha_ci = tp.alpha_ci if tp.alpha_jack_ci is None else tp.alpha_jack_ci
    detail = (_decay_str(form) + f"; L2M's fit α = {tp.alpha:.3f} [{alpha_ci[0]:.3f}, {alpha_ci[1]:.3f}]"
              + (" (jackknife over blocks of the text)" if tp.alpha_jack_ci is not None else " (given C)")
              + f", r² = {tp.r2:.3f}")
    if verdict == "inconclusive":
        scale += "; " + would_decide("more text (the estimator's noise and bias fall as 1/N), or the curve's "
                                     "jackknife over blocks of the text recorded, so that the interval runs over "
                                     "text rather than distances")
    return Claim("chen2025.fig2ef.text-two-point-power-law", "Chen et al. 2025 Fig. 2(e, f), App. A.VII",
                 "Two-point MI of text decays as a power law once the constant bias C is fitted out", "statistical",
                 None if form is None else form.llr, None if form is None else form.ci,
                 "the offset power law fits the curve better than the offset exponential: the 95% interval of the "
                 "mean log-likelihood ratio per distance above 0 (below 0: not reproduced), with α > 0",
                 verdict, TWO_POINT, scale, detail, design=_decay_design(f"the text ({tp.chars:,} characters)"))


def _decay_design(unit: str) -> Design:
    return Design(h1="I(d) − C decays as a power law A d^−α (algebraically)",
                  h0="I(d) − C decays exponentially, A e^(−d/ξ) (a Markov or finite-state source)",
                  test=DECAY_TEST,
                  unit=f"{unit}: one curve, whose distances are not independent; ranges of distance stand in for "
                       "blocks of text, which the recorded results do not keep",
                  power="see the calibration (the recorded curve's power-law fit with its residual noise)")


GENERATED_STATEMENT = ("Text generated by a pretrained LM (GPT-2 in the paper) keeps a long-range algebraic "
                       "decay of its two-point MI")


def _generated_claim(r: Results) -> Claim:
    """Shen 2019 Fig. 3(d), Sec. 5.2: what a pretrained LM writes keeps a long-range algebraic decay."""
    gen, kjv = r.generated_two_point, r.text_two_point
    scale = f"{r.profile}: {r.sample_chars:,} generated characters per temperature"
    picked = _generated_curve(r)
    others = "; ".join(f"{name}: {_decide_decay(g.mi, g.min_lag)[0]}, α = {g.alpha:.3f}"
                       for name, g in gen.items() if picked is None or name != picked[0])
    detail = f"{others}; KJV: α = {kjv.alpha:.3f}"
    design = _decay_design(f"the generated text ({r.sample_chars:,} characters)")
    if picked is None:
        return Claim("shen2019.fig3d.generated-text-power-law", "Shen 2019 Fig. 3(d), Sec. 5.2",
                     GENERATED_STATEMENT, "statistical", None, None, "needs the pretrained model's samples",
                     "inconclusive", SMOL, scale + "; " + would_decide("the pretrained model's samples "
                                                                       "(smol_docs > 0)"), detail, design=design)
    name, g = picked
    verdict, form = _decide_decay(g.mi, g.min_lag)
    if verdict == "inconclusive":
        scale += "; " + would_decide("more generated characters (the estimator's floor falls as 1/N; the reference "
                                     "and full profiles draw 1,000,000 per temperature)")
    return Claim("shen2019.fig3d.generated-text-power-law", "Shen 2019 Fig. 3(d), Sec. 5.2",
                 GENERATED_STATEMENT, "statistical", None if form is None else form.llr,
                 None if form is None else form.ci,
                 f"{name}: the offset power law fits better than the offset exponential (the KJV rule: interval of "
                 "the mean log-likelihood ratio per distance above 0 with α > 0; below 0: not reproduced); the "
                 "other temperatures are in the detail", verdict,
                 SMOL + "; KJV as the corpus; ancestral sampling from <|endoftext|>", scale,
                 f"{name}: {_decay_str(form)}; " + detail, design=design)
