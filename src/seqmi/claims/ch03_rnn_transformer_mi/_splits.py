"""Chapter 03's claims on the text's splits: the held-out sets' long-range MI (App. D.2).

Re-exported by :mod:`seqmi.claims.ch03_rnn_transformer_mi`, where the public ones are documented.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from seqmi.claims import EQUIVALENCE_LEVEL, EQUIVALENCE_MARGIN, Claim, Design, combine, decide, decide_equivalence
from seqmi.claims.ch03_rnn_transformer_mi._shared import CONTROL_DRAWS, TEXT_SUBSTITUTION, _pct, _scale
from seqmi.results.ch03_rnn_transformer_mi import LongRange, Results
from seqmi.stats import t_quantile


# ---------------------------------------------------------------- App. D.2: the splits


def _heldout_relative(valid: float, null_mean: float, null_sd: float, draws: int,
                      level: float = EQUIVALENCE_LEVEL) -> tuple[float, list[float]]:
    """A held-out set's long-range mean I relative to same-size training subsamples', ``valid / null - 1``.

    The held-out set is one draw of a set of that size, the subsamples ``draws`` more: the
    interval is the prediction interval of one new draw, ``t(draws - 1) · sd · √(1 + 1/draws)``,
    divided by the subsamples' mean.
    """
    rel = valid / null_mean - 1
    half = t_quantile(level, draws - 1) * null_sd * math.sqrt(1 + 1 / draws) / null_mean
    return rel, [rel - half, rel + half]


def decide_uniform(valid: float, null_mean: float, null_sd: float, draws: int) -> tuple[str, tuple[float, list[float]]]:
    """App. D.2, text8: consecutive blocks as held-out set match the training text at the same size.

    Two one-sided tests on the 90% interval of the relative difference of the long-range
    mean I (``_heldout_relative``), with the book's margin.
    """
    rel = _heldout_relative(valid, null_mean, null_sd, draws)
    return decide_equivalence(rel[1]), rel


def decide_floor(splits: Sequence[LongRange], draws: int) -> tuple[str, list[tuple[float, list[float]]]]:
    """The control: every held-out set's long-range excess is the estimator's floor at its size.

    Per split: the same-size subsamples' mean above the whole training split's (one-sample
    Student-t 95% over the subsamples; the size effect exists), and the held-out set no
    more than ``EQUIVALENCE_MARGIN`` above the subsamples (non-inferiority: the 90%
    interval's upper bound below the margin).
    """
    parts, rels = [], []
    t = t_quantile(0.95, draws - 1)
    for g in splits:
        half = t * g.null_sd / math.sqrt(draws)
        parts.append(decide([g.null_mean - g.train - half, g.null_mean - g.train + half], 0.0))
        rel = _heldout_relative(g.valid, g.null_mean, g.null_sd, draws)
        rels.append(rel)
        parts.append(decide(rel[1], EQUIVALENCE_MARGIN, claim_above=False))
    return combine(parts), rels


def _splits(r: Results) -> list[Claim]:
    g = r.split_long_range
    start = r.split_far_start
    scale = (f"{r.profile}: rows of {r.settings.split_row} characters, τ = {start}–"
             f"{r.settings.split_max_lag}, {CONTROL_DRAWS} same-size subsamples of the training split")
    claim = ("shen2019.appD2.split-nonuniform", "Shen 2019 App. D.2, Fig. 6",
             "A split into consecutive blocks (text8, split by the author) is more uniform: its held-out text carries "
             "the long-range MI of the training text at the same size (unlike WikiText's and Penn Treebank's held-out "
             "sets)", "statistical")
    rule = (f"the contiguous split (consecutive blocks, as text8's): the validation set's mean I(τ ≥ {start}) relative "
            "to same-size random subsamples of its training split, 90% prediction interval of one held-out draw; "
            f"inside ±{EQUIVALENCE_MARGIN:.0%} (two one-sided tests): reproduced; wholly outside: not reproduced")
    c = g.get("contiguous")
    floor = "at this size the long-range MI is the estimator's floor (the control row), so the test compares floors"
    if c is None:
        design = Design(h1="held-out blocks as the training text at the same size",
                        h0="a difference of at least the margin", test="two one-sided tests",
                        unit="same-size subsamples", power="not computable: not measured",
                        margin=f"±{EQUIVALENCE_MARGIN:.0%}")
        uniform = Claim(*claim, None, None, rule, "inconclusive", TEXT_SUBSTITUTION,
                        _scale(scale, "inconclusive", ["the same-size control of the contiguous split"]),
                        "not measured in this recording", design)
    else:
        verdict, (rel, ci) = decide_uniform(c.valid, c.null_mean, c.null_sd, CONTROL_DRAWS)
        spread = c.null_sd / c.null_mean
        t = t_quantile(EQUIVALENCE_LEVEL, CONTROL_DRAWS - 1)
        limit = EQUIVALENCE_MARGIN / t / math.sqrt(1 + 1 / CONTROL_DRAWS)
        needs = [f"a held-out set whose long-range mean I scatters by under {limit:.1%} between same-size samples (here "
                 f"{spread:.1%}, and one held-out set cannot average it down): held-out blocks long enough for the "
                 f"text's own long-range MI ({c.train:.1e} over the whole training split) to rise above the "
                 f"estimator's floor at their size ({c.null_mean:.1e}), more text than the KJV holds; or the test "
                 "split measured against same-size subsamples as a second held-out set"]
        design = Design(
            h1=f"the contiguous validation set's mean I(τ ≥ {start}) within ±{EQUIVALENCE_MARGIN:.0%} of same-size "
               "training text's (uniform, as text8)",
            h0=f"it differs by at least {EQUIVALENCE_MARGIN:.0%} (Shen's WikiText validation: 'much larger')",
            test=f"two one-sided tests on the 90% prediction interval of one held-out draw against {CONTROL_DRAWS} "
                 f"same-size subsamples (t with {CONTROL_DRAWS - 1} degrees of freedom)",
            unit=f"same-size sets of rows of the training split ({CONTROL_DRAWS}); the held-out set is one",
            power=f"one held-out set, {CONTROL_DRAWS} subsamples: power ≈ {_uniform_power(spread):.2f} against "
                  f"no difference at the recorded spread ({spread:.1%}); {floor}",
            margin=f"±{EQUIVALENCE_MARGIN:.0%} relative difference (the book's one margin)")
        # the claim's interval is the usual 95% one; the 90% one decides (two one-sided tests at 5%)
        uniform = Claim(*claim, rel, _heldout_relative(c.valid, c.null_mean, c.null_sd, CONTROL_DRAWS, 0.95)[1],
                        rule, verdict, TEXT_SUBSTITUTION, _scale(scale, verdict, needs),
                        f"contiguous validation {c.valid:.2e} vs {CONTROL_DRAWS} same-size training subsamples "
                        f"{c.null_mean:.2e} ± {c.null_sd:.1e}: relative difference {rel:+.1%}, 90% interval "
                        f"{_pct(ci)}; {floor}; the random split (chapters assigned at random) is not Shen's text8",
                        design)
    verdict, rels = decide_floor(list(g.values()), CONTROL_DRAWS)
    spreads = [v.null_sd / v.null_mean for v in g.values()]
    control_design = Design(
        h1="every held-out set's long-range mean I is no more than the same-size training text's (+"
           f"{EQUIVALENCE_MARGIN:.0%}), which lies above the whole training split's: the excess is the floor",
        h0=f"a held-out set carries at least {EQUIVALENCE_MARGIN:.0%} more long-range MI than same-size training text "
           "(an excess of its own), or same-size subsamples sit no higher than the whole split",
        test=f"per split, a Student-t 95% interval of the subsamples' mean above the whole split's, and the 90% "
             f"prediction interval of the held-out set relative to them below +{EQUIVALENCE_MARGIN:.0%} "
             "(non-inferiority)",
        unit=f"same-size sets of rows of the training split ({CONTROL_DRAWS} per split); each held-out set is one",
        power=f"power ≈ {math.prod(_floor_power(v) for v in spreads):.2f} against held-out sets equal to same-size "
              f"training text at the recorded spreads ({', '.join(f'{v:.1%}' for v in spreads)})",
        margin=f"+{EQUIVALENCE_MARGIN:.0%} relative excess (the book's one margin, one-sided)")
    control = Claim("shen2019.appD2.valid-excess-is-sample-size",
                    "Shen 2019 Sec. 4.2.2, App. D.2, Fig. 6; control of this chapter",
                    "The validation split's larger, flat long-range MI (Shen's non-uniformity) is matched by a same-size "
                    "training subsample: a sample-size floor of the estimator", "statistical", None, None,
                    f"per split, the same-size training subsamples' mean I(τ ≥ {start}) above the whole training "
                    "split's (Student-t 95%), and the validation set's relative to them below "
                    f"+{EQUIVALENCE_MARGIN:.0%} (90% prediction interval): reproduced; the validation set wholly above "
                    "the margin: not reproduced",
                    verdict, TEXT_SUBSTITUTION,
                    _scale(scale, verdict, ["held-out sets of lower spread between same-size samples"]),
                    "; ".join(f"{h}: valid {v.valid:.1e}, whole train {v.train:.1e}, subsamples "
                              f"{v.null_mean:.1e}±{v.null_sd:.1e}, valid relative to them {rel:+.1%} "
                              f"(90% {_pct(ci)})" for (h, v), (rel, ci) in zip(g.items(), rels)),
                    control_design)
    return [uniform, control]


def _uniform_power(spread: float) -> float:
    """Power of :func:`decide_uniform` at no difference: both bounds of the prediction interval inside the margin."""
    from scipy import stats

    half = t_quantile(EQUIVALENCE_LEVEL, CONTROL_DRAWS - 1) * spread * math.sqrt(1 + 1 / CONTROL_DRAWS)
    sd = spread * math.sqrt(1 + 1 / CONTROL_DRAWS)
    inside = stats.norm.cdf((EQUIVALENCE_MARGIN - half) / sd) - stats.norm.cdf((half - EQUIVALENCE_MARGIN) / sd)
    return float(max(0.0, inside))


def _floor_power(spread: float) -> float:
    """Power of :func:`decide_floor`'s non-inferiority part at no difference (normal approximation)."""
    from scipy import stats

    half = t_quantile(EQUIVALENCE_LEVEL, CONTROL_DRAWS - 1) * spread * math.sqrt(1 + 1 / CONTROL_DRAWS)
    return float(stats.norm.cdf((EQUIVALENCE_MARGIN - half) / (spread * math.sqrt(1 + 1 / CONTROL_DRAWS))))
