"""The claim rules: the record's validation, the decision helpers, and every branch of the
statistical rules on synthetic or recorded results (no chapter is executed here)."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from seqmi import claims, stats
from seqmi.claims import ch04_bipartite_mi_l2m as ch04
from seqmi.claims import ch05_ngram_ssm as ch05
from seqmi.claims import ch06_attention_gradients as ch06


def _claim(**kw):
    base = dict(id="p.x", source="eq. 1", statement="s", kind="exact", value=1.0, ci=None, rule="r",
                verdict="reproduced", substitution="", scale="quick")
    return claims.Claim(**{**base, **kw})


def test_claim_rejects_bad_values():
    with pytest.raises(ValueError, match="kind must be one of"):
        _claim(kind="anecdote")
    with pytest.raises(ValueError, match="verdict must be one of"):
        _claim(verdict="sort of")
    with pytest.raises(ValueError, match="only a statistical claim can be inconclusive"):
        _claim(verdict="inconclusive")
    with pytest.raises(ValueError, match="ci must be"):
        _claim(kind="statistical", ci=[1.0])
    with pytest.raises(ValueError, match="must not be empty"):
        _claim(scale="")
    with pytest.raises(ValueError, match=r"lacks the field\(s\) \['scale'\]"):
        claims.check_record({k: v for k, v in _claim().as_dict().items() if k != "scale"})


def test_as_dict_stores_plain_numbers():
    d = _claim(kind="statistical", value=np.float64(0.5), ci=[np.float32(0.25), float("inf")]).as_dict()
    assert d["value"] == 0.5 and d["ci"] == [0.25, None]
    claims.check_record(d)


def test_decide_has_three_outcomes():
    assert claims.decide([0.2, 0.4], 0.1) == "reproduced"
    assert claims.decide([-0.4, -0.2], 0.1) == "not reproduced"
    assert claims.decide([0.0, 0.4], 0.1) == "inconclusive"
    assert claims.decide([0.2, 0.4], 0.5, claim_above=False) == "reproduced"
    assert claims.decide([0.6, 0.9], 0.5, claim_above=False) == "not reproduced"
    assert claims.decide([float("nan"), 1.0], 0.5) == "inconclusive"
    assert claims.decide_within([0.2, 0.3], 0.0, 1.0) == "reproduced"
    assert claims.decide_within([1.2, 1.3], 0.0, 1.0) == "not reproduced"
    assert claims.decide_within([-0.5, 0.5], 0.0, 1.0) == "inconclusive"


def test_needed_samples_scales_with_the_square_of_noise_over_effect():
    # sd 0.15 at 20 000 samples, an effect of 0.08: (1.96 * 0.15 / 0.08)^2 = 13.5 times more
    assert stats.needed_samples(20000, 0.15, 0.08) == math.ceil(20000 * (stats.Z95 * 0.15 / 0.08) ** 2)
    assert stats.needed_samples(5, 0.01, 1.0) == 6  # already resolved: at least one more than measured
    assert stats.needed_samples(5, float("nan"), 1.0) == 6


def test_intervals():
    lo, hi = stats.bootstrap_ci(np.arange(10.0))
    assert lo < 4.5 < hi and 2 < lo and hi < 7
    assert stats.bootstrap_ci([1.0, 1.0]) == [1.0, 1.0]
    lo, hi = stats.binomial_ci(1990, 2000)
    assert lo < 0.995 < hi and lo > 0.99
    assert stats.binomial_ci(0, 2)[0] == 0.0
    for n in (10, 200, 2000, 5000):  # the observed proportion lies inside, also at 0% and 100%
        for k in (0, n):
            lo, hi = stats.binomial_ci(k, n)
            assert lo <= k / n <= hi


def test_mean_intervals_over_seeds():
    # t(0.975, 2) = 4.303: three seeds 1, 2, 3 have mean 2, sd 1, half-width 4.303/sqrt(3)
    lo, hi = stats.mean_ci([1.0, 2.0, 3.0])
    assert hi - 2.0 == pytest.approx(4.302653 / math.sqrt(3), rel=1e-6) and lo + hi == pytest.approx(4.0)
    assert stats.mean_ci([1.0]) == [-math.inf, math.inf]
    # equal variances and sizes: Welch's dof is 2(n-1) = 4, se = sqrt(2/3)
    lo, hi = stats.mean_diff_ci([4.0, 5.0, 6.0], [1.0, 2.0, 3.0])
    assert (lo + hi) / 2 == pytest.approx(3.0) and (hi - lo) / 2 == pytest.approx(2.776445 * math.sqrt(2 / 3), rel=1e-6)
    assert stats.mean_diff_ci([1.0, 1.0], [0.0, 0.0]) == [1.0, 1.0]
    assert stats.mean_diff_ci([1.0], [0.0, 1.0]) == [-math.inf, math.inf]


def test_for_chapter_rejects_unknown_chapters():
    with pytest.raises(ValueError, match="no claim rules for chapter '99_nothing'"):
        claims.for_chapter("99_nothing", {})


# ---------------------------------------------------------------- chapter 03


def _curve(kind, n=100):
    tau = np.arange(1, n + 1, dtype=float)
    return (0.1 * np.exp(-tau / 20) if kind == "exp" else 0.1 * tau**-0.5).tolist()


def _point(xi, params=100, kind="exp", gamma=0.45, n_fit=100, spread=0.05, n=3, converged=True, form=None):
    """A binary model of ``n`` seeds: ξ about ``xi`` (relative spread ``spread`` over the seeds)."""
    form = form if form is not None else (2.5 if kind == "exp" else -2.5)  # ln(RSS_pow / RSS_exp)
    scatter = np.linspace(-1, 1, n)
    seeds = [{"xi": xi * (1 + spread * d), "gamma": gamma + 0.01 * d, "n_fit_points": n_fit, "mi": _curve(kind),
              "pow_rss": float(np.exp(form + 0.2 * d)), "exp_rss": 1.0, "converged": converged} for d in scatter]
    return {"mi": _curve(kind), **seeds[0], "params": params, "seeds": seeds}


def _seeded(mean, spread=0.05, n=3, sets=4):
    """``n`` seeds of ``sets`` sample-set gaps each, the seeds' means ``mean ± spread``."""
    return [[m + 0.01 * k for k in range(sets)] for m in mean + spread * np.linspace(-1, 1, n)]


def _ch03(widths=(2, 8), points=None, text=None, mid=None):
    pts = {f"rnn_w{w}_d1": _point(10 + w, params=10 * w) for w in widths}
    pts.update({f"lstm_w{w}_d1": _point(20 + 2 * w, params=40 * w) for w in widths})
    pts["rnn_w8_d2"] = _point(30, params=300)
    pts["transformer_w16_d1"] = _point(float("inf"), kind="power")
    pts.update(points or {})
    text_gaps = {"lstm 64×1": _seeded(0.7), "transformer 64×1": _seeded(0.85, 0.02), "lstm 64×2": _seeded(0.9),
                 "word_lstm 64×1": _seeded(0.5), "word_lstm 64×2": _seeded(0.8),
                 "word_transformer 64×1": _seeded(0.6), "word_transformer 64×2": _seeded(0.3)}
    text_gaps.update(text or {})
    text_points = {f"{k.split(' ')[0]}_w64_d{k[-1]}": _point(20, kind="power" if k.startswith("word") else "exp")
                   for k in text_gaps}
    return {
        "profile": "quick", "n_train": 800, "length": 128, "n_generate": 500, "threshold": 1e-3,
        "data_fit": {"xi": 95.0, "xi_ci": [88.0, 103.0], "gamma": 0.44, "gamma_ci": [0.43, 0.46], "n_fit_points": 100},
        "points": pts, "convergence": {"window": 2, "tol": 0.01}, "data_mi": _curve("power"),
        "split_short_range_difference": {"contiguous_valid": [-0.018, 0.005], "contiguous_test": [-0.019, 0.008],
                                         "random_valid": [0.0, 0.009], "random_test": [0.005, 0.009]},
        "split_long_range": {"contiguous": {"valid": 1e-3, "train": 2e-4, "null_mean": 1.1e-3, "null_sd": 7e-5,
                                            "z_valid": -1.0, "z_train": -12.0}},
        "split_long_range_shape": {f"{how}_{part}": _shape(8e-4 if how == "contiguous" else 1e-5)
                                   for how in ("contiguous", "random") for part in ("valid", "test")},
        "text_points": text_points, "text_gaps": text_gaps,
        "intermediate_gaps": {"lstm 64×1": _seeded(0.66), "word_lstm 64×1": _seeded(0.36),
                              "word_transformer 64×1": _seeded(0.68), **(mid or {})},
        "gap_null": 0.05,
        "depth_pairs": ["lstm 64×1→2", "word_lstm 64×1→2", "word_transformer 64×1→2"],
        "samples_floor_dominated": False,
        "settings": {"seeds": 3, "seed": 0, "rnn_widths": list(widths), "rnn_depths": [1, 2], "depth_widths": [8],
                     "transformer_widths": [8, 16], "text_lstm_widths": [64], "word_lstm_widths": [64],
                     "word_transformer_widths": [64], "text_train_chars": 200000, "text_epochs": 2,
                     "word_epochs": 2, "text_generate": 20000, "text_sets": 4, "text_max_lag": 100, "mid_start": 10,
                     "split_row": 1000, "split_max_lag": 100},
    }


def _shape(excess, decay=1e-5, se=1e-4):
    return {"excess": excess, "excess_se": se, "decay": decay, "decay_se": se, "train_decay": 3e-4,
            "train_decay_se": 2e-5}


def test_ch03_split_nonuniformity_is_read_as_shen_states_it():
    assert _ch03_claim(_ch03(), "shen2019.appD2.split-nonuniform").verdict == "reproduced"
    # the random split's validation set as large and flat: no difference between the splits
    both = _ch03()
    both["split_long_range_shape"]["random_valid"] = _shape(8e-4)
    c = _ch03_claim(both, "shen2019.appD2.split-nonuniform")
    assert c.verdict == "not reproduced" and "random_valid: excess +8.0e-04±1.0e-04" in c.detail
    # larger, but decaying like the training split: not Shen's observation
    decays = _ch03()
    decays["split_long_range_shape"] = {k: _shape(8e-4 if k.startswith("contiguous") else 1e-5, decay=5e-4)
                                        for k in decays["split_long_range_shape"]}
    assert _ch03_claim(decays, "shen2019.appD2.split-nonuniform").verdict == "not reproduced"
    old = _ch03()
    del old["split_long_range_shape"]
    assert _ch03_claim(old, "shen2019.appD2.split-nonuniform").verdict == "inconclusive"


def _ch03_claim(results, cid):
    return claims.by_id(claims.for_chapter("03_rnn_transformer_mi", results), cid)


def test_ch03_saturation_is_a_change_of_slope_over_seeds():
    c = _ch03_claim(_ch03(), "shen2019.fig1c.rnn-xi-saturates")
    assert c.verdict == "inconclusive" and "needs widths 32, two below it and one above it" in c.scale
    sat = {"rnn_w2_d1": _point(10), "rnn_w32_d1": _point(40), "rnn_w128_d1": _point(42)}
    assert _ch03_claim(_ch03((2, 32, 128), sat), "shen2019.fig1c.rnn-xi-saturates").verdict == "reproduced"
    # still growing like ln m above 32 (the old "less than twice" rule passed this): not saturated
    grows = {**sat, "rnn_w128_d1": _point(40 + 30 / np.log(16) * np.log(4), spread=0.2)}
    c = _ch03_claim(_ch03((2, 32, 128), grows), "shen2019.fig1c.rnn-xi-saturates")
    assert c.verdict == "inconclusive" and "slope of ξ against ln m +10.8" in c.detail
    faster = {**sat, "rnn_w128_d1": _point(120)}
    assert _ch03_claim(_ch03((2, 32, 128), faster), "shen2019.fig1c.rnn-xi-saturates").verdict == "not reproduced"


def test_ch03_verdicts_need_three_converged_seeds():
    sat = {"rnn_w2_d1": _point(10), "rnn_w32_d1": _point(40), "rnn_w128_d1": _point(42)}
    two = {k: _point(v["seeds"][1]["xi"], n=2) for k, v in sat.items()}
    c = _ch03_claim(_ch03((2, 32, 128), two), "shen2019.fig1c.rnn-xi-saturates")
    assert c.verdict == "inconclusive" and "≥ 3 independently trained seeds per model (this run: 2)" in c.scale
    unconverged = {**sat, "rnn_w32_d1": _point(40, converged=False)}
    c = _ch03_claim(_ch03((2, 32, 128), unconverged), "shen2019.fig1c.rnn-xi-saturates")
    assert c.verdict == "inconclusive" and "reproduced by its intervals, held back" in c.scale
    assert "6/9 converged by early stopping, or the best validation loss improved by less than 1%" in c.scale


def test_ch03_depth_claims_are_decided_over_seeds():
    c = _ch03_claim(_ch03(), "shen2019.fig8b.lstm-depth-no-gain")
    # char LSTM 0.70 -> 0.90 and word LSTM 0.50 -> 0.80: deeper is worse, no gain
    assert c.verdict == "reproduced" and "lstm 64×1→2: -0.20" in c.detail
    helps = _ch03(text={"lstm 64×2": _seeded(0.4)})
    assert _ch03_claim(helps, "shen2019.fig8b.lstm-depth-no-gain").verdict == "not reproduced"
    assert _ch03_claim(_ch03(), "shen2019.fig10b.transformer-depth-gain").verdict == "reproduced"
    close = _ch03(text={"word_transformer 64×2": _seeded(0.58, 0.05)})
    c = _ch03_claim(close, "shen2019.fig10b.transformer-depth-gain")
    # +0.02 against a seed spread of 0.05: Welch's interval straddles 0, and says how many seeds decide it
    a, b = np.mean(_seeded(0.6), axis=1), np.mean(_seeded(0.58, 0.05), axis=1)
    se = np.sqrt(a.var(ddof=1) / 3 + b.var(ddof=1) / 3)
    assert c.verdict == "inconclusive"
    assert f"needs ≈ {math.ceil(3 * (1.959964 * se / 0.02) ** 2)} seeds per model" in c.scale


def test_ch03_text_claims_take_the_spread_between_seeds():
    # every seed's sets agree closely, but the seeds disagree: the interval is the seeds'
    wide = [[m] * 4 for m in (0.4, 0.9, 1.4)]
    c = _ch03_claim(_ch03(text={"transformer 64×1": wide}), "shen2019.fig3b.char-transformer-beats-lstm")
    assert c.verdict == "inconclusive" and "vs 0.40/0.90/1.40" in c.detail
    better = _ch03_claim(_ch03(text={"transformer 64×1": _seeded(0.5)}), "shen2019.fig3b.char-transformer-beats-lstm")
    assert better.verdict == "reproduced" and "width 64: +0.20" in better.detail
    assert _ch03_claim(_ch03(), "shen2019.fig3b.char-transformer-beats-lstm").verdict == "not reproduced"


def test_ch03_a_recording_from_before_seeds_is_not_decided():
    old = _ch03()
    old["text_gaps"] = {k: v[0] for k, v in old["text_gaps"].items()}  # one model's sets
    old["text_points"] = {k: {n: v for n, v in p.items() if n != "seeds"} for k, p in old["text_points"].items()}
    old["depth_gains"] = {name: [0.1] * 4 for name in old.pop("depth_pairs")}
    c = _ch03_claim(old, "shen2019.fig8b.lstm-depth-no-gain")
    assert c.verdict == "inconclusive" and "(this run: 1)" in c.scale


def test_ch03_decay_form_is_decided_over_seeds():
    assert _ch03_claim(_ch03(), "shen2019.fig1a.rnn-exponential").verdict == "reproduced"
    power = {"rnn_w2_d1": _point(12, kind="power")}
    assert _ch03_claim(_ch03(points=power), "shen2019.fig1a.rnn-exponential").verdict == "not reproduced"
    # ξ near the data's: its rate interval reaches the data's
    near = {"rnn_w2_d1": _point(90, spread=0.3)}
    assert _ch03_claim(_ch03(points=near), "shen2019.fig1a.rnn-exponential").verdict == "inconclusive"


def test_ch03_fig3a_reads_the_papers_width_16_transformer():
    c = _ch03_claim(_ch03(), "shen2019.fig3a.transformer-power-law")
    assert c.verdict == "reproduced" and "width 16" in c.statement
    exp = {"transformer_w16_d1": _point(50, kind="exp")}
    assert _ch03_claim(_ch03(points=exp), "shen2019.fig3a.transformer-power-law").verdict == "not reproduced"
    steep = {"transformer_w16_d1": _point(float("inf"), kind="power", gamma=0.8)}
    assert _ch03_claim(_ch03(points=steep), "shen2019.fig3a.transformer-power-law").verdict == "not reproduced"
    # a profile without it (quick trains width 8 alone) cannot decide the paper's statement
    results = _ch03()
    results["settings"] = {**results["settings"], "transformer_widths": [8]}
    del results["points"]["transformer_w16_d1"]
    c = _ch03_claim(results, "shen2019.fig3a.transformer-power-law")
    assert c.verdict == "inconclusive" and "not in this profile's widths" in c.detail


def test_ch03_depth_beats_width_needs_a_wider_model():
    c = _ch03_claim(_ch03(), "shen2019.fig1d.rnn-depth-beats-width")
    assert c.verdict == "inconclusive" and "at least 300 parameters" in c.scale
    wide = {"rnn_w32_d1": _point(20, params=320)}
    assert _ch03_claim(_ch03((2, 8, 32), wide), "shen2019.fig1d.rnn-depth-beats-width").verdict == "reproduced"
    deeper = {"rnn_w32_d1": _point(45, params=320)}
    assert _ch03_claim(_ch03((2, 8, 32), deeper), "shen2019.fig1d.rnn-depth-beats-width").verdict == "not reproduced"


def test_ch03_lstm_depth_over_two_layers():
    results = _ch03(points={"lstm_w8_d2": _point(40, spread=0.01), "lstm_w8_d3": _point(41, spread=0.01)})
    results["settings"]["rnn_depths"] = [1, 2, 3]
    assert _ch03_claim(results, "shen2019.fig7.lstm-depth-over-two").verdict == "reproduced"
    results["points"]["lstm_w8_d3"] = _point(60)
    assert _ch03_claim(results, "shen2019.fig7.lstm-depth-over-two").verdict == "not reproduced"
    assert _ch03_claim(_ch03(), "shen2019.fig7.lstm-depth-over-two").verdict == "inconclusive"


def test_ch03_small_lstm_against_the_width_32_rnn():
    results = _ch03((2, 4, 32), points={"rnn_w32_d1": _point(25, params=1190), "lstm_w4_d1": _point(40, params=126)})
    c = _ch03_claim(results, "shen2019.appE11.small-lstm-beats-rnn-32")
    assert c.verdict == "reproduced" and c.substitution == ""
    results["points"]["lstm_w4_d1"] = _point(15, params=126)
    assert _ch03_claim(results, "shen2019.appE11.small-lstm-beats-rnn-32").verdict == "not reproduced"
    # without width 4, the narrower LSTM of width 2 stands in, and the row says so
    c = _ch03_claim(_ch03((2, 32), points={"rnn_w32_d1": _point(25), "lstm_w2_d1": _point(12)}),
                    "shen2019.appE11.small-lstm-beats-rnn-32")
    assert c.verdict == "not reproduced" and "LSTM of width 2" in c.substitution


def test_ch03_transformer_xi_and_magnitude_rows():
    assert _ch03_claim(_ch03(), "shen2019.fig9.transformer-16-overestimates-xi").verdict == "reproduced"
    short = _ch03(points={"transformer_w16_d1": _point(30, kind="power")})
    assert _ch03_claim(short, "shen2019.fig9.transformer-16-overestimates-xi").verdict == "not reproduced"
    results = _ch03(points={"transformer_w8_d1": _point(float("inf"), kind="power")})
    assert _ch03_claim(results, "shen2019.sec5-1.smallest-transformer-not-exponential").verdict == "reproduced"

    def scaled(kind, factor):
        for name, p in results["points"].items():
            if name.startswith(kind):
                p["seeds"] = [{**x, "mi": (factor * np.asarray(_curve("power"))).tolist()} for x in p["seeds"]]

    # the Transformers' curves on the data's, the LSTMs' a fifth below it
    scaled("transformer", 1.0)
    scaled("lstm", 0.8)
    c = _ch03_claim(results, "shen2019.sec5-1.transformer-magnitude-matches")
    assert c.verdict == "reproduced" and "transformer 16: [+0.000, +0.000]; " in c.detail
    scaled("transformer", 3.0)
    assert _ch03_claim(results, "shen2019.sec5-1.transformer-magnitude-matches").verdict == "not reproduced"


def test_ch03_fig2_decay_forms_of_text_lstms():
    assert _ch03_claim(_ch03(), "shen2019.fig2.char-lstm-no-power-law-tail").verdict == "reproduced"
    results = _ch03()
    results["text_points"]["lstm_w64_d1"] = _point(20, kind="power")
    assert _ch03_claim(results, "shen2019.fig2.char-lstm-no-power-law-tail").verdict == "not reproduced"


def test_ch03_text_quality_follows_the_mi_mismatch():
    results = _ch03()
    # better-spelled seeds where the mismatch is small: rank correlation -1
    # (the fixture's seeds' mean gaps: lstm 64×1 0.67-0.77, transformer 64×1 0.85-0.89, lstm 64×2 0.87-0.97)
    results["spelling"] = {"lstm 64×1": [0.62, 0.60, 0.58], "transformer 64×1": [0.50, 0.48, 0.46],
                           "lstm 64×2": [0.44, 0.43, 0.42]}
    c = _ch03_claim(results, "shen2019.appF.mi-shows-in-text-quality")
    assert c.verdict == "reproduced" and c.value < -0.9 and c.ci[1] < 0
    # worse spelling where the MI tracks the text better: the opposite link
    results["spelling"] = {name: [1 - f for f in v] for name, v in results["spelling"].items()}
    assert _ch03_claim(results, "shen2019.appF.mi-shows-in-text-quality").verdict == "not reproduced"
    results["spelling"] = {"lstm 64×1": [0.6, 0.5, 0.4]}
    c = _ch03_claim(results, "shen2019.appF.mi-shows-in-text-quality")
    assert c.verdict == "inconclusive" and "needs at least 6 character-model seeds (this run: 3)" in c.scale
    assert _ch03_claim(_ch03(), "shen2019.appF.mi-shows-in-text-quality").verdict == "inconclusive"


def test_ch03_claims_of_a_run_with_pending_points():
    # a run stopped by time_budget_s saves what is done: every claim is still decided or open
    results = _ch03()
    results["points"] = {}
    stored = claims.for_chapter("03_rnn_transformer_mi", results)
    transformer = claims.by_id(stored, "shen2019.fig3a.transformer-power-law")
    assert transformer.verdict == "inconclusive" and "needs the single-layer Transformer of width 16" in transformer.scale
    assert "pending" in transformer.detail


# ---------------------------------------------------------------- chapter 04


def test_ch04_vclub_difference_interval():
    fd, fv = {"beta": 0.74, "ci": [-1.47, 2.95]}, {"beta": 0.51, "ci": [-0.08, 1.10]}
    r = {"profile": "quick", "text_bipartite": {"m/direct": {"lengths": [4, 32], "fit": fd,
                                                             "estimates": [{"n": 6}]},
                                                "m/vclub": {"lengths": [4, 32], "fit": fv, "estimates": [{"n": 6}]}}}
    assert ch04._sublinear(fd)[0] == "inconclusive"
    assert ch04._sublinear({"beta": 0.5, "ci": [0.4, 0.6]})[0] == "reproduced"
    assert ch04._sublinear({"beta": 1.5, "ci": [1.2, 1.8]})[0] == "not reproduced"
    assert ch04._sublinear(None)[0] == "inconclusive"
    assert ch04._docs(r, "m") == 6


@pytest.mark.parametrize("change, verdict", [(0.05, "reproduced"), (-0.05, "not reproduced"),
                                              (0.005, "inconclusive")])
def test_ch04_fig5_interval_over_chapters(change, verdict):
    f5 = {"gap_change": change, "gap_change_se": 0.01, "gap_late": 0.1, "n_docs": 100, "n_windows": 400,
          "tf_params": 1000, "ssm_params": 1010, "tf_position_nll": [1.0] * 256, "tf_valid_loss": math.log(2),
          "ssm_valid_loss": 2 * math.log(2), "n_seeds": 3}
    c = ch04._fig5_claim({"profile": "reference", "settings": {"char_steps": 10}, "figure5": f5})
    assert c.verdict == verdict
    # one trained model per architecture: the interval over chapters alone decides nothing about them
    one = ch04._fig5_claim({"profile": "reference", "settings": {"char_steps": 10},
                            "figure5": {k: v for k, v in f5.items() if k != "n_seeds"}})
    assert one.verdict == "inconclusive" and "models of each (this run: 1)" in one.scale
    assert ("held back" in one.scale) == (verdict != "inconclusive")
    assert c.ci == pytest.approx([change - 1.96 * 0.01, change + 1.96 * 0.01], abs=1e-4)
    assert "100 held-out chapters (400 windows" in c.scale and "Mamba 2.000 bits/char" in c.detail
    # the chapters that would decide it, from the interval's half-width and the measured change
    assert ("needs ≈" in c.scale) == (verdict == "inconclusive")
    # beyond the corpus: the bound on the change is stated instead of a sample size alone
    assert ("more than the KJV's 1,189" in c.scale) == (verdict == "inconclusive")


def test_ch04_seeds_needed_scale_the_standard_error_not_the_t_interval():
    seeds = np.array([1.1, 1.0, 1.3])
    ci = stats.mean_ci(seeds)  # Student-t, 2 degrees of freedom: 4.3 standard errors each side
    se = seeds.std(ddof=1) / math.sqrt(3)
    assert (ci[1] - ci[0]) / 2 == pytest.approx(4.303 * se, rel=1e-3)
    # the effect (mean - 1) is resolved at 1.96 standard errors: 6 seeds, not the 25 that
    # scaling the t half-width would ask for
    effect = seeds.mean() - 1.0
    assert stats.standard_error(seeds) == pytest.approx(se)
    needed = ch04._seeds_needed(3, [(stats.standard_error(seeds), effect)])
    assert needed == math.ceil(3 * (1.96 * se / effect) ** 2) == 6


def test_standard_error_of_a_mean_and_of_a_difference():
    a, b = np.array([1.0, 2.0, 3.0]), np.array([0.0, 4.0])
    assert stats.standard_error(a) == pytest.approx(1 / math.sqrt(3))
    # Welch's: the two groups' variances of the mean add
    assert stats.standard_error(a, b) == pytest.approx(math.sqrt(1 / 3 + 8 / 2))
    assert stats.standard_error(a, [5.0]) == math.inf


def test_ch04_rank_correlation_interval():
    lo, hi = ch04.spearman_interval(0.8, 4)
    assert lo < 0 < 0.8 < hi  # four runs say almost nothing
    lo, hi = ch04.spearman_interval(0.95, 40)
    assert 0.8 < lo < 0.95 < hi
    lo, hi = ch04.ratio_interval([2.0, 2.1, 1.9, 2.0], [1.0, 1.1, 0.9, 1.0])
    assert 1.5 < lo < 2.0 < hi < 2.5


# ---------------------------------------------------------------- chapter 05


def test_ch05_seed_fractions():
    r = {"profile": "quick"}
    one = ch05._seed_fraction_claim(r, "n.x", "s", "t", [True] * 5, "rule", "", "")
    none = ch05._seed_fraction_claim(r, "n.x", "s", "t", [False] * 5, "rule", "", "")
    few = ch05._seed_fraction_claim(r, "n.x", "s", "t", [False, True], "rule", "", "")
    assert (one.verdict, none.verdict, few.verdict) == ("reproduced", "not reproduced", "inconclusive")
    assert "needs ≈" in few.scale


def _fit_row(m, max_error, sign_errors, forced, wrong=(), construction=False):
    return {"hidden": m, "max_error": max_error, "sign_errors": sign_errors, "min_sign_errors": forced,
            "from_construction": construction, "wrong_points": [list(wrong)] * len(max_error)}


def test_ch05_below_bound_claim():
    rows = [_fit_row(1, [1.0, 1.3], [3, 4], 3, [1, 3, 5]), _fit_row(3, [1.1, 1.2], [2, 2], 2, [2, 4]),
            _fit_row(5, [1.2, 1.1], [1, 2], 1, [4]), _fit_row(6, [1.2, 0.5], [1, 0], 0),
            _fit_row(8, [1e-12, 1.1], [0, 2], 0, construction=True)]
    r = {"profile": "quick", "n_points": 8, "memorisation_fits": rows,
         "memorisation_training": {"restarts": 2, "steps": 100, "lr": 0.01}}
    claim = ch05._below_bound_claim(r)
    assert claim.kind == "exact" and claim.verdict == "reproduced" and claim.value == 1.0
    assert "1: 1.00, 3: 1.10, 5: 1.10" in claim.detail
    assert "every sign right: 6" in claim.detail and "memorised to 1e-06: 8" in claim.detail
    assert "random starts: 6" in claim.detail and "at m = 5 the model with the fewest wrong signs misses j = [4]" in claim.detail
    # one model below N - 2 = 6 with every sign right refutes the proposition
    rows[1] = _fit_row(3, [0.9, 1.2], [0, 2], 2)
    assert ch05._below_bound_claim(r).verdict == "not reproduced"
    # so does a model with fewer wrong signs than the piece count forces, or a construction that misses
    rows[1] = _fit_row(3, [1.1, 1.2], [1, 2], 2)
    assert ch05._below_bound_claim(r).verdict == "not reproduced"
    rows[1] = _fit_row(3, [1.1, 1.2], [2, 2], 2)
    rows[4] = _fit_row(8, [1e-3, 1.1], [0, 2], 0, construction=True)
    assert ch05._below_bound_claim(r).verdict == "not reproduced"



@pytest.mark.parametrize("factors, verdict", [
    ([0.60, 0.62, 0.58, 0.61], "reproduced"),  # every seed's map contracts, tightly
    ([1.20, 1.25, 1.18, 1.22], "not reproduced"),  # every seed's map expands
    ([0.70, 1.30, 0.90, 1.10], "inconclusive"),  # seeds on both sides of 1
])
def test_ch05_lipschitz_window_is_decided_over_seeds(factors, verdict):
    r = {"profile": "quick", "window_tol": 1e-3, "training": {"tuned_lr": 0.1},
         "lipschitz": {"contraction": {"rnn": factors}, "lags": [0, 1, 8],
                       "window": {"rnn": [5.0] * len(factors), "ssm": [3.0] * len(factors)}}}
    claim = ch05._lipschitz_claim(r)
    assert claim.verdict == verdict and claim.value == pytest.approx(np.mean(factors))
    assert verdict != "inconclusive" or "needs ≈" in claim.scale

# ---------------------------------------------------------------- chapter 06


def test_ch06_accuracy_and_budget():
    c = ch06._accuracy("k.x", "s", "t", 0.998, 2000, "", "quick", "")
    assert c.verdict == "reproduced"
    c = ch06._accuracy("k.x", "s", "t", 0.991, 2000, "", "quick", "")
    assert c.verdict == "inconclusive" and "larger held-out batch" in c.scale
    c = ch06._accuracy("k.x", "s", "t", 0.0, 2000, "", "quick", "")
    assert c.verdict == "not reproduced"
    c = ch06._accuracy("k.x", "s", "t", 0.0, 2000, "", "quick", "", budget_note="needs ≥ 1100 updates")
    assert c.verdict == "inconclusive" and c.scale.endswith("needs ≥ 1100 updates")


def _fig4_results(tf_slopes: list[float], ssm_slopes: list[float]) -> dict:
    """Fig. 4 records of three seeds: KL curves rising linearly by ``slope`` over the positions."""
    def run(slopes: list[float], level: float, L: int) -> dict:
        curves = [level * (1 + s * np.linspace(0, 1, L)) for s in slopes]
        return {"position_kl_replicates": [c.tolist() for c in curves], "position_kl": np.mean(curves, 0).tolist(),
                "average_kl_replicates": [float(c.mean()) for c in curves], "average_kl": float(np.mean(curves)),
                "bipartite_mi": float(L), "state_size": 64}
    runs = {}
    for L, level in ((16, 1.0), (64, 2.0)):  # the SSM's KL doubles with L, the Transformer's does not
        runs[f"transformer/d=8/L={L}"] = run(tf_slopes, 1.0, L)
        runs[f"mamba/d=4/L={L}"] = run(ssm_slopes, level, L)
    settings = {"l2m_lengths": [16, 64], "model_widths": [4, 8], "model_layers": 1, "train_steps": 10, "batch": 4,
                "token_dim": 2, "flat_ratio": 1.25}
    # the marginal prediction's KL, far above every model's: all of them read their context
    free = {str(L): {"mean": 10.0} for L in (16, 64)}
    return {"profile": "reference", "l2m_settings": settings, "l2m_runs": runs, "l2m_context_free_kl": free}


def test_a_recording_of_the_fig4_section_alone_gets_its_three_claims():
    # a full-profile recording begun from the GPU's fig4 section holds none of the other numbers
    from seqmi.claims.ch04_bipartite_mi_l2m import rules

    ids = [c.id for c in rules(_fig4_results([0.0, 0.02, 0.04], [1.0, 1.1, 1.2]))]
    assert ids == ["chen2025.fig4cd.position-kl-flat", "chen2025.fig4ab.ssm-degrades-with-length",
                   "chen2025.fig4b.ssm-kl-collapse"]


def test_fig4_claims_are_decided_over_seeds():
    from seqmi.claims.ch04_bipartite_mi_l2m import _fig4_claims

    decided = {c.id: c for c in _fig4_claims(_fig4_results([0.0, 0.02, 0.04], [1.0, 1.1, 1.2]))}
    flat = decided["chen2025.fig4cd.position-kl-flat"]
    assert flat.verdict == "reproduced" and "over 3 seeds" in flat.rule and "3 seeds" in flat.scale
    assert decided["chen2025.fig4ab.ssm-degrades-with-length"].verdict == "reproduced"
    # seeds that disagree: the interval straddles the threshold, and the scale names the seeds needed
    noisy = {c.id: c for c in _fig4_claims(_fig4_results([0.0, 0.3, 0.6], [0.2, 1.0, 1.8]))}
    flat = noisy["chen2025.fig4cd.position-kl-flat"]
    assert flat.verdict == "inconclusive" and "seeds" in flat.scale.split(";")[-1]


def test_collapse_spearman_counts_every_replicate():
    from seqmi.experiments.ch04_records import collapse_spearman

    runs = _fig4_results([0.0] * 3, [0.1, 0.2, 0.3])["l2m_runs"]
    rho, n = collapse_spearman(runs)
    assert n == 6 and rho > 0.8  # KL 1 vs 2 at MI per dimension 16/64 vs 64/64


def test_fig4_claims_need_models_that_beat_the_context_free_kl():
    from seqmi.claims.ch04_bipartite_mi_l2m import _fig4_claims

    r = _fig4_results([0.0, 0.02, 0.04], [1.0, 1.1, 1.2])
    # the SSM at L = 64 scores 70% of predicting every token by its marginal: it used too little of its context
    r["l2m_context_free_kl"]["64"]["mean"] = r["l2m_runs"]["mamba/d=4/L=64"]["average_kl"] / 0.7
    decided = {c.id: c for c in _fig4_claims(r)}
    for cid in ("chen2025.fig4cd.position-kl-flat", "chen2025.fig4ab.ssm-degrades-with-length",
                "chen2025.fig4b.ssm-kl-collapse"):
        assert decided[cid].verdict == "inconclusive"
        assert "mamba d=4 L=64" in decided[cid].scale and "context-free" in decided[cid].scale


# ---------------------------------------------------------------- chapter 06


@pytest.mark.parametrize("updates, reached, max_steps, verdict", [
    (41_000, True, 200_000, "reproduced"),
    (200_000, False, 200_000, "not reproduced"),  # the authors' whole budget spent at chance: evidence against
    (3_000, False, 3_000, "inconclusive"),  # below it: no evidence
])
def test_ch06_denoise_is_decided_on_the_run_with_the_authors_budget(updates, reached, max_steps, verdict):
    recorded = Path(__file__).parents[1] / "results" / "reference" / "06_attention_gradients" / "results.json"
    r = json.loads(recorded.read_text())["results"]
    r["denoise_long"] = {"accuracy": 0.995 if reached else 0.125, "updates": updates,
                         "steps_to_99": updates if reached else None, "length": 100, "hidden": 128, "lr": 1e-3,
                         "max_steps": max_steps, "eval_steps": [], "eval_accuracy": [], "eval_loss": [],
                         "seconds_per_update": 0.02}
    # Fig. 3's models still on the plateau, so that its scale names the way past it
    r["gradient_accuracy"] = {k: [0.1] * len(v) for k, v in r["gradient_accuracy"].items()}
    decided = ch06.rules(r)
    denoise = claims.by_id(decided, "kerg2020.table5.denoise")
    assert denoise.verdict == verdict and denoise.value == r["denoise_long"]["accuracy"]
    assert f"at most {max_steps:,} updates" in denoise.scale
    # Fig. 3 needs models past the plateau: a run that left it says how far that is (its runs of 41,000 updates)
    fig3 = claims.by_id(decided, "kerg2020.fig3.rho-destabilises").scale
    hours = sum(map(len, r["gradient_profiles"].values())) * 41_000 * 0.02 / 3600
    assert (("left it by 41,000 updates" in fig3 and f"≈ {hours:.1f} h" in fig3) if reached
            else "left it" not in fig3)
    # results recorded before the long run: decided on the grid, as they were
    del r["denoise_long"]
    assert claims.by_id(ch06.rules(r), "kerg2020.table5.denoise").value == r["task_accuracy"]["denoise/100/relrnn"]


def _table4_results(rel: list[float], base: list[float], steps: int = 1_000_000, kinds=("full", "relevancy")) -> dict:
    """The recorded reference results with a MiniGrid sweep: each agent's reward on every environment."""
    recorded = Path(__file__).parents[1] / "results" / "reference" / "06_attention_gradients" / "results.json"
    r = json.loads(recorded.read_text())["results"]
    envs = ["MiniGrid-MemoryS7-v0", "MiniGrid-MemoryS13-v0"]

    def run(reward: float) -> dict:
        ev = {"episodes": 100, "successes": 100 * reward, "success": reward, "mean_return": reward * 0.95,
              "mean_length": 10.0}
        return {"env_steps": [steps // 2, steps], "success_curve": [0.5, reward], "evaluation": {e: ev for e in envs}}

    runs = {f"{k}/{i}": run(v) for k, values in zip(kinds, (base, rel)) for i, v in enumerate(values)}
    r["minigrid"] = {"train_env": envs[0], "test_envs": envs[1:], "kinds": list(kinds), "replicates": len(rel),
                     "first_seed": 0, "updates": 2, "n_envs": 64, "eval_episodes": 100, "lr": 1e-3, "runs": runs}
    return r


@pytest.mark.parametrize("rel, base, steps, verdicts", [
    ([0.95, 0.97, 0.99], [0.40, 0.45, 0.42], 1_000_000, ("reproduced",) * 3),
    # both at the memoryless optimum, far below the authors' budget: a failure there is no evidence
    ([0.30, 0.31, 0.29], [0.30, 0.50, 0.70], 1_000_000, ("inconclusive",) * 3),
    # the same failure after the authors' budget is evidence against the first claim
    ([0.30, 0.31, 0.29], [0.30, 0.50, 0.70], 5_000_000, ("not reproduced", "inconclusive", "inconclusive")),
    ([0.95], [0.40], 1_000_000, ("inconclusive",) * 3),  # one seed measures no spread between seeds
])
def test_ch06_table4_is_decided_over_seeds_within_the_budget(rel, base, steps, verdicts):
    decided = ch06.rules(_table4_results(rel, base, steps))
    rows = [claims.by_id(decided, f"kerg2020.table4.memory-{x}") for x in ("solved", "train", "transfer")]
    assert tuple(c.verdict for c in rows) == verdicts
    assert rows[0].value == pytest.approx(np.mean(rel) * 0.95)
    assert rows[1].value == pytest.approx((np.mean(rel) - np.mean(base)) * 0.95)
    assert "MemLSTM" in rows[1].rule and "not the paper's MemLSTM" not in rows[1].substitution
    if len(rel) == 1:
        assert all(c.ci is None and "≥ 3" in c.scale for c in rows)
    elif steps < ch06.PAPER_ENV_STEPS and "inconclusive" in verdicts:
        assert all("5,000,000" in c.scale for c in rows)


def test_ch06_table4_names_an_lstm_baseline_and_a_missing_sweep():
    r = _table4_results([0.95, 0.97, 0.99], [0.40, 0.45, 0.42], kinds=("lstm", "relevancy"))
    train = claims.by_id(ch06.rules(r), "kerg2020.table4.memory-train")
    assert "LSTM's" in train.rule and "not the paper's MemLSTM" in train.substitution
    del r["minigrid"]
    for c in ch06.rules(r)[-3:]:
        assert c.verdict == "inconclusive" and "not run" in c.scale


def test_text_two_point_claim_reads_the_jackknife_intervals():
    from seqmi.claims.ch04_bipartite_mi_l2m import _two_point_claim

    lags = list(range(1, 201))
    mi = [0.05 * d ** -0.8 + 2e-3 for d in lags]  # min I = 2.7e-3 from d = 4 on
    tp = {"lags": lags, "mi": mi, "alpha": 0.8, "alpha_ci": [0.79, 0.81], "offset": 2e-3, "r2": 0.99,
          "min_lag": 4, "chars": 1000, "alpha_jack_ci": [0.6, 1.0], "offset_jack_ci": [1e-3, 2.5e-3],
          "n_jackknife": 20}

    def verdict(**changes):
        return _two_point_claim({"profile": "reference", "text_two_point": {**tp, **changes}}).verdict

    assert verdict() == "reproduced"
    assert verdict(offset_jack_ci=[1e-3, 3e-3]) == "inconclusive"  # C not resolved from min I
    assert verdict(offset_jack_ci=[0.0, 0.0]) == "not reproduced"  # C at its bound: no bias found
    assert verdict(r2=0.85) == "not reproduced"
    assert verdict(alpha_jack_ci=[-0.1, 1.0]) == "inconclusive"
