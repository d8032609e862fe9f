"""Chapter 03: trained models' sample MI, split uniformity, and the claims logic.

The tests marked ``book`` read the chapter's quick run; the others check each rule's
decision function on fixed inputs (never a trained model's verdict).
"""

import dataclasses
import functools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from seqmi.claims import ch03_rnn_transformer_mi as ch03
from seqmi.claims.ch03_rnn_transformer_mi._shared import _converged, _shapes
from seqmi.claims.ch03_rnn_transformer_mi._text import _lag_gaps
from seqmi.claims.ch03_rnn_transformer_mi._text_range import _params, _tail_forms, _vocab, _xi_se
from seqmi.results.ch03_rnn_transformer_mi import LongRange, Model, Results, Seed

CHAPTER = "03_rnn_transformer_mi"
REFERENCE = Path(__file__).resolve().parents[2] / "results" / "reference" / CHAPTER / "results.json"
book = pytest.mark.book


@functools.cache
def _recorded() -> Results:
    """The reference recording, whose records the helpers' inputs are made from."""
    return Results.from_json(json.loads(REFERENCE.read_text())["results"])


def _model(*curves) -> Model:
    """A recorded model whose seeds' MI curves are ``curves``."""
    model = _recorded().points["rnn_w2_d1"]
    return dataclasses.replace(model, seeds=[dataclasses.replace(model.seeds[0], mi=list(c)) for c in curves])


def _seed(**fields) -> Seed:
    """A recorded seed with ``fields`` replaced."""
    return dataclasses.replace(_recorded().points["rnn_w2_d1"].seeds[0], **fields)


@pytest.fixture(scope="module")
def res(book_run):
    return book_run.results(CHAPTER)


@pytest.fixture(scope="module")
def payload(book_run):
    from seqmi import report

    return report.load_results(book_run.chapter(CHAPTER))


@book
def test_quick_profile_finishes_every_point(res):
    # its wall time (under two minutes on two cores) is measured by benchmarks/bench_loaded.py
    assert res["pending"] == []
    assert res["wall_s"] > 0


@book
def test_training_data_has_the_designed_power_law(res):
    mi = np.array(res["data_mi"])
    assert len(mi) == res["length"] - 1
    # I(1) = 0.1 exactly by design; the baseline's 500 fresh sequences x 127 pairs give a
    # standard error of ~1e-3
    assert mi[0] == pytest.approx(0.1, abs=0.01)
    # the fitted exponent of one long-memory sample scatters widely: 0.36-0.50 over seeds
    # 0-5 for gamma = 0.4, which the bootstrap interval over the sequences takes in
    fit = res["data_fit"]
    assert abs(fit["gamma"] - 0.4) < 0.12 and fit["ci_method"].startswith("bootstrap")
    assert fit["gamma_ci"][1] - fit["gamma_ci"][0] > 0.1


@book
def test_every_model_learned_the_short_range(res):
    for name, r in res["points"].items():
        mi = np.array(r["mi"])
        assert len(mi) == res["length"] - 1, name
        # better than a fair coin (ln 2 = 0.693 nats) on validation ...
        assert 0.4 < r["val_loss"] < 0.65, name
        # ... and the samples carry the data's nearest-neighbour MI to within a factor 1.5
        assert 0.1 / 1.5 < mi[0] < 0.1 * 1.5, name
        assert r["params"] > 0 and r["state_floats"] > 0


@book
def test_every_seed_is_trained_and_measured_on_its_own(res):
    seeds = res["settings"]["seeds"]
    for name, r in {**res["points"], **res["text_points"]}.items():
        assert len(r["seeds"]) == seeds, name
        # independent weights and data order: no two seeds end at the same validation loss
        assert len(set(r["seed_val_losses"])) == seeds, name
        assert r["val_loss"] == min(r["seed_val_losses"]) == r["seeds"][r["best_seed"]]["val_loss"], name
        for s in r["seeds"]:
            assert len(s["val_history"]) == s["epochs"] and s["stopped"] in ("epochs", "patience"), name
            assert isinstance(s["converged"], bool), name
    assert res["convergence"] == {"window": 2, "tol": 0.01}


@book
def test_correlation_lengths_come_with_intervals(res):
    for name, r in res["points"].items():
        lo, hi = r["xi_ci"]
        assert r["ci_method"].startswith("bootstrap") and lo <= hi, name
        assert r["n_fit_points"] >= 3, name


@book
def test_contiguous_split_is_non_uniform_and_random_split_is_not(res):
    d = res["split_short_range_difference"]
    # the epistles and Revelation carry ~0.018 nats less short-range MI than Genesis-Acts;
    # batch-means standard errors ~0.006-0.009 (10 groups of 1,000-character rows)
    assert d["contiguous_valid"][0] < -2 * d["contiguous_valid"][1]
    assert d["contiguous_test"][0] < -1.5 * d["contiguous_test"][1]
    for part in ("random_valid", "random_test"):
        assert abs(d[part][0]) < 3 * d[part][1]


@book
def test_validation_long_range_excess_is_a_sample_size_floor(res):
    for how, g in res["split_long_range"].items():
        # the same-size subsamples' spread is the null distribution at the validation size
        assert abs(g["z_valid"]) < 3, how
        assert g["z_train"] < -3, how
        assert g["valid"] > 2 * g["train"], how


@book
def test_character_models_and_passages(res):
    corpus = np.array(res["corpus_mi"])
    assert corpus[0] > 0.5  # adjacent characters of English share ~0.75 nats
    assert res["text_points"]
    for name, r in res["text_points"].items():
        assert len(r["head"]) == 600, name
        if name.startswith("word_"):
            continue  # word models' losses are per word (test_word_vocabulary_and_models)
        # far better than uniform over ~60 characters (ln 60 = 4.1 nats/char)
        assert r["val_loss"] < 3.0, name
    assert all(len(p) == 600 for p in res["passages"].values())


@book
def test_split_claim_and_intervals(payload):
    from seqmi.claims import DECIDES, by_id

    stored = payload["claims"]
    assert len(stored) == 23
    # App. D.2 as Shen compares it: the contiguous (consecutive-block) validation set against same-size
    # training subsamples, its relative difference with a 90% interval
    split = by_id(stored, "shen2019.appD2.split-nonuniform")
    assert "same-size training subsamples" in split["detail"] and split["ci"][0] < split["value"] < split["ci"][1]
    assert split["design"]["margin"]
    # every statistical claim has a design, and every inconclusive one says what would decide it
    for c in stored:
        assert c["kind"] != "statistical" or c["design"], c["id"]
        if c["verdict"] == "inconclusive":
            assert DECIDES in c["scale"], c["id"]


@book
def test_word_vocabulary_and_models(res):
    v = res["word_vocab"]
    # ~45 k tokens of Genesis-Exodus, ~1.2 k types seen 3 times or more, 4.4 characters per token
    assert 500 < v["size"] < 5000
    assert 4.0 < v["chars_per_token"] < 5.0
    assert v["unk_rate"]["train"] < 0.1
    words = {k: r for k, r in res["text_points"].items() if k.startswith("word_")}
    assert {"word_lstm_w64_d1", "word_lstm_w64_d2", "word_transformer_w64_d1", "word_transformer_w64_d2"} <= set(words)
    for name, r in words.items():
        # two epochs already bring the loss well below uniform over the vocabulary (ln 1193 = 7.1)
        assert r["val_loss"] < np.log(v["size"]) - 1, name
        # measured at character level, on the same lags as the character models
        assert len(r["mi"]) == len(res["corpus_mi"]), name
        assert np.isfinite(r["mi"]).all(), name
        # adjacent characters of the samples share information, as English does (0.75 nats)
        assert r["mi"][0] > 0.2, name
    assert len(res["word_corpus_mi"]) == len(res["corpus_mi"])
    # writing 4% of the words as "<unk>", one fixed five-character run, adds short-range MI
    # (0.75 -> 0.89 nats at tau = 1 in the quick profile), and not more than half again
    assert res["corpus_mi"][0] < res["word_corpus_mi"][0] < 1.5 * res["corpus_mi"][0]


@book
def test_text_correlation_lengths_come_with_intervals(res):
    fits = [("corpus", res["corpus_fit"]), ("corpus_small", res["corpus_small_fit"])]
    fits += list(res["text_points"].items())
    for name, r in fits:
        assert r["n_fit_points"] >= 3, name
        lo, hi = r["xi_ci"]
        if np.isfinite(r["xi"]):
            assert lo <= r["xi"] <= hi, name
    # the depth sweeps of Figs. 8b and 10b
    assert {"lstm_w64_d1", "lstm_w64_d2"} <= set(res["text_points"])


@book
def test_word_and_depth_numbers(res):
    gaps, mid, pairs, null = res["text_gaps"], res["intermediate_gaps"], res["depth_pairs"], res["gap_null"]
    sets, seeds = res["settings"]["text_sets"], res["settings"]["seeds"]
    # per model, per seed, one gap per sample set, every one a mean |ln I| difference
    for g in list(gaps.values()) + list(mid.values()):
        assert len(g) == seeds and all(len(x) == sets and np.isfinite(x).all() and min(x) >= 0 for x in g)
    # the sets are independent draws: their gaps differ
    assert all(len(set(x)) > 1 for g in gaps.values() for x in g)
    # a perfect model's gap: two disjoint 20 kB samples of the same text differ by ~0.1-0.3
    assert 0.1 < null < 0.3
    assert sorted(pairs) == ["lstm 64×1→2", "word_lstm 64×1→2", "word_transformer 64×1→2"]  # quick: no deep char Transformer
    for name in pairs:
        head, depths = name.split("×")
        assert all(f"{head}×{d}" in gaps for d in depths.split("→"))


# ---------------------------------------------------------------- the decision functions, on fixed inputs


def _around(mean, spread, n=3):
    """``n`` seeds spread evenly about ``mean`` (sample sd = ``spread``)."""
    return mean + spread * np.linspace(-1, 1, n) / np.linspace(-1, 1, n).std(ddof=1)


def test_exponential_decay_every_width():
    forms, rates = [_around(2.0, 0.1)] * 2, [_around(0.05, 0.002)] * 2
    assert ch03.decide_exponential(forms, rates, 0.01) == "reproduced"
    assert ch03.decide_exponential([forms[0], _around(-2.0, 0.1)], rates, 0.01) == "not reproduced"
    assert ch03.decide_exponential([forms[0], _around(0.2, 1.0)], rates, 0.01) == "inconclusive"


def test_lstm_exponential_at_the_widths_the_paper_names():
    clear, faint = _around(3.8, 0.1), _around(0.6, 0.05)
    assert ch03.decide_lstm_exponential([clear, faint]) == "reproduced"
    assert ch03.decide_lstm_exponential([clear, _around(-1.0, 0.1)]) == "not reproduced"
    # the recorded width-8 spread (0.33, 0.53, 0.96): its interval reaches below 0
    assert ch03.decide_lstm_exponential([clear, np.array([0.33, 0.53, 0.96])]) == "inconclusive"


def test_recorded_models_by_kind():
    points = {"lstm_w8_d1": {}, "lstm_w8_d3": {}, "word_lstm_w64_d1": {}, "transformer_w16_d2": {}}
    assert _shapes(points, "lstm") == [(8, 1), (8, 3)]
    assert _shapes(points, "word_lstm") == [(64, 1)]
    assert _shapes(points, "transformer") == [(16, 2)]


def test_transformer_beyond_every_lstm():
    transformer = [_around(0.004, 0.0002)]
    lstms = [_around(0.008, 0.0002), _around(0.03, 0.001)]
    assert ch03.decide_beyond_lstms(transformer, lstms)[0] == "reproduced"
    # one LSTM with the longer ξ: the Transformer is not beyond the best LSTM
    assert ch03.decide_beyond_lstms(transformer, [*lstms, _around(0.002, 0.0002)])[0] == "not reproduced"
    # an LSTM whose seeds spread as the recorded width-32 one's (ξ 195, 125, 78)
    verdict, cis = ch03.decide_beyond_lstms(transformer, [*lstms, 1 / np.array([195.0, 125.0, 78.0])])
    assert verdict == "inconclusive" and len(cis) == 1 and len(cis[0]) == 3
    # seeds are never paired: reordering one model's seeds changes nothing
    shuffled = ch03.decide_beyond_lstms([transformer[0][::-1]], lstms)[1]
    assert np.allclose(shuffled, ch03.decide_beyond_lstms(transformer, lstms)[1], rtol=1e-12, atol=0)


def test_mid_range_is_a_non_inferiority():
    assert ch03.decide_mid_range([_around(3.8, 0.05)], 3.8, 0.05, [False])[0] == "reproduced"
    # longer than the text's passes too (Shen's 'spurious long correlation lengths' of shallow models)
    assert ch03.decide_mid_range([_around(6.0, 0.05)], 3.8, 0.05, [False])[0] == "reproduced"
    assert ch03.decide_mid_range([_around(2.5, 0.05)], 3.8, 0.05, [False])[0] == "not reproduced"
    # a Transformer short of Shen's context: its failure decides nothing, its success counts a fortiori
    assert ch03.decide_mid_range([_around(2.5, 0.05)], 3.8, 0.05, [True])[0] == "inconclusive"
    assert ch03.decide_mid_range([_around(3.8, 0.05)], 3.8, 0.05, [True])[0] == "reproduced"
    # a reference as loose as one same-size sample's regression interval (27%) leaves it open
    verdict, [(change, ci)] = ch03.decide_mid_range([_around(3.8, 0.05)], 3.8, 1.0, [False])
    assert verdict == "inconclusive" and ci[0] < -0.1 < ci[1] and abs(change) < 1e-12
    fit = dataclasses.replace(_recorded().data_fit, xi=4.0, xi_ci=[2.0, math.inf])
    assert _xi_se(fit) == pytest.approx(16 * 0.5 / (2 * 1.959963984540054))


def test_power_law_tail_of_deep_transformers():
    assert ch03.decide_tail([_around(-1.0, 0.1), _around(-0.5, 0.1)], True) == "reproduced"
    assert ch03.decide_tail([_around(-1.0, 0.1), _around(0.5, 0.1)], True) == "not reproduced"
    # short of the statement's depths, lags or context: undecided whatever the data
    assert ch03.decide_tail([_around(-1.0, 0.1)], False) == "inconclusive"
    tau = np.arange(1, 601, dtype=float)
    wiggle = 1 + 0.02 * np.sin(1.7 * tau)
    forms = _tail_forms(_model((0.3 * tau**-0.6 * wiggle + 1e-4).tolist(),
                               (0.3 * np.exp(-tau / 80) * wiggle + 1e-4).tolist(),
                               [0.1] * 40 + [-1e-4] * 560))  # too few positive lags past τ = 50
    assert forms[0] < 0 < forms[1] and math.isnan(forms[2])


def test_transformer_parameters_as_the_model_counts_them():
    from seqmi.models.lm import TransformerLM

    for vocab, width, depth in ((63, 64, 2), (63, 128, 5), (40, 16, 3)):
        model = TransformerLM(vocab, width, depth, heads=8, max_len=32)
        count = sum(p.numel() for p in model.parameters())
        assert _params(width, depth, vocab) == count
        assert _vocab(count, width, depth) == pytest.approx(vocab)


def test_saturation_growth_plateau_and_collapse():
    widths, zeros = [2, 8, 32, 64], [np.zeros(3)] * 4
    grow = [_around(10, 0.2), _around(20, 0.2), _around(40, 0.2)]
    verdict, info = ch03.decide_saturation(widths, grow + [_around(40.5, 0.2)], zeros)
    assert verdict == "reproduced" and info["growth"][1][0] > 0 and -0.1 < info["steps"][64][1][0]
    # ξ still rising like ln m past 32 (40 -> 50): beyond the 10% margin
    assert ch03.decide_saturation(widths, grow + [_around(50, 0.2)], zeros)[0] == "not reproduced"
    # seeds spread by a quarter of ξ: the plateau's 90% interval reaches past ±10%
    assert ch03.decide_saturation(widths, grow + [_around(40, 10)], zeros)[0] == "inconclusive"
    # the widest model's validation loss worse than width 32's: a collapse, not a plateau
    losses = [np.full(3, 0.525)] * 3 + [_around(0.527, 1e-4)]
    verdict, info = ch03.decide_saturation(widths, grow + [_around(20, 0.2)], losses)
    assert verdict == "inconclusive" and info["collapsed"] == [64]
    # seeds are never paired across widths: reordering one width's seeds changes nothing
    shuffled = [grow[0][::-1], grow[1], grow[2][[1, 2, 0]], _around(40.5, 0.2)]
    assert ch03.decide_saturation(widths, shuffled, zeros)[1]["growth"] == info["growth"]


def test_depth_beats_width_and_no_gain():
    assert ch03.decide_depth_beats_width(_around(0.05, 0.002), _around(0.03, 0.002))[0] == "reproduced"
    assert ch03.decide_depth_beats_width(_around(0.03, 0.002), _around(0.05, 0.002))[0] == "not reproduced"
    assert ch03.decide_depth_beats_width(_around(0.04, 0.01), _around(0.04, 0.01))[0] == "inconclusive"
    assert ch03.decide_no_gain([(_around(100, 1), _around(101, 1))])[0] == "reproduced"
    assert ch03.decide_no_gain([(_around(100, 1), _around(130, 1))])[0] == "not reproduced"
    # worse by a third is outside the margin too: two one-sided tests, not "gain < 0"
    assert ch03.decide_no_gain([(_around(100, 1), _around(70, 1))])[0] == "not reproduced"
    assert ch03.decide_no_gain([(_around(100, 20), _around(100, 20))])[0] == "inconclusive"


def test_a_model_of_another_size_than_the_papers():
    assert ch03.at_paper_width("not reproduced", 4, 4) == "not reproduced"
    assert ch03.at_paper_width("reproduced", 2, 4) == "reproduced"  # a weaker model's win, a fortiori
    assert ch03.at_paper_width("not reproduced", 2, 4) == "inconclusive"
    assert ch03.at_paper_width("reproduced", 8, 4) == "inconclusive"
    assert ch03.at_paper_width("not reproduced", 8, 4) == "inconclusive"
    rnn, lstm = _around(0.02, 0.001), _around(0.008, 0.001)
    assert ch03.decide_small_lstm(rnn, lstm, 4)[0] == "reproduced"
    assert ch03.decide_small_lstm(lstm, rnn, 4)[0] == "not reproduced"
    assert ch03.decide_small_lstm(lstm, rnn, 2)[0] == "inconclusive"
    assert ch03.decide_small_lstm(rnn, lstm, 8)[0] == "inconclusive"
    forms = _around(-1.0, 0.1)
    assert ch03.decide_not_exponential(forms, 4)[0] == "reproduced"
    assert ch03.decide_not_exponential(-forms, 4)[0] == "not reproduced"
    assert ch03.decide_not_exponential(forms, 8)[0] == "inconclusive"


def test_power_law_and_overestimated_xi():
    forms = _around(-2.0, 0.1)
    assert ch03.decide_power_law(forms, _around(0.40, 0.002), True, 0.40, 0.002)[0] == "reproduced"
    assert ch03.decide_power_law(forms, _around(0.60, 0.002), True, 0.40, 0.002)[0] == "not reproduced"
    assert ch03.decide_power_law(forms, _around(0.40, 0.04), True, 0.40, 0.002)[0] == "inconclusive"
    assert ch03.decide_power_law(forms, _around(0.40, 0.002), False, 0.40, 0.002)[0] == "not reproduced"
    data = [1 / 225, 1 / 208]
    assert ch03.decide_overestimates(_around(1 / 400, 1e-4), data)[0] == "reproduced"
    assert ch03.decide_overestimates(_around(1 / 100, 1e-4), data)[0] == "not reproduced"
    assert ch03.decide_overestimates(_around(1 / 216, 1e-3), data)[0] == "inconclusive"


def test_magnitudes_match_the_data_within_the_margin():
    lstm = [_around(-0.2, 0.01)]
    assert ch03.decide_magnitude([_around(0.0, 0.01)], lstm)[0] == "reproduced"
    assert ch03.decide_magnitude([_around(0.5, 0.01)], lstm)[0] == "not reproduced"
    assert ch03.decide_magnitude([_around(0.0, 0.1)], lstm)[0] == "inconclusive"


def test_held_out_blocks_against_same_size_training_text():
    assert ch03.decide_uniform(1.0e-3, 1.0e-3, 1e-5, 10)[0] == "reproduced"
    assert ch03.decide_uniform(1.5e-3, 1.0e-3, 1e-5, 10)[0] == "not reproduced"
    # one held-out set scattering by 9% (the recorded spread) cannot show ±10%
    verdict, (rel, ci) = ch03.decide_uniform(0.97e-3, 1.13e-3, 1.04e-4, 10)
    assert verdict == "inconclusive" and ci[0] < -0.1 < ci[1] and ci[1] - ci[0] > 0.2
    floor = LongRange(valid=1.0e-3, train=1.5e-4, null_mean=1.05e-3, null_sd=5e-5, z_valid=-1.0, z_train=-18.0)
    assert ch03.decide_floor([floor], 10)[0] == "reproduced"
    assert ch03.decide_floor([dataclasses.replace(floor, valid=2e-3)], 10)[0] == "not reproduced"
    assert ch03.decide_floor([dataclasses.replace(floor, null_sd=1e-4, valid=1.1e-3)], 10)[0] == "inconclusive"


def test_text_forms_and_mismatch_comparisons():
    up, down, flat = _around(1.0, 0.1), _around(-1.0, 0.1), _around(0.0, 1.0)
    assert ch03.decide_text_forms([up], [down]) == "reproduced"
    assert ch03.decide_text_forms([down], [down]) == "not reproduced"
    assert ch03.decide_text_forms([up], [flat]) == "inconclusive"
    lstm, better = _around(0.7, 0.02), _around(0.5, 0.02)
    assert ch03.decide_gaps([(lstm, better)], True, [False])[0] == "reproduced"
    assert ch03.decide_gaps([(better, lstm)], True, [False])[0] == "not reproduced"
    assert ch03.decide_gaps([(lstm, _around(0.7, 0.2))], True, [False])[0] == "inconclusive"
    # a pair held back (a Transformer short of Shen's context) decides nothing, whatever its interval
    assert ch03.decide_gaps([(lstm, better)], True, [True])[0] == "inconclusive"


def test_text_quality_by_permutation():
    gaps = np.linspace(0.1, 0.8, 8)
    assert ch03.decide_rank_link(gaps, 1 - gaps)[0] == "reproduced"
    assert ch03.decide_rank_link(gaps, gaps)[0] == "not reproduced"
    verdict, rho, p_less, p_greater = ch03.decide_rank_link(gaps, np.array([3, 1, 4, 1, 5, 9, 2, 6.0]))
    assert verdict == "inconclusive" and p_less > 0.05 and p_greater > 0.05 and math.isfinite(rho)


def test_lag_gaps_are_the_chapters_curve_gap():
    from seqmi.experiments.ch03_rnn_transformer_mi import curve_gap

    tau = np.arange(1, 61, dtype=float)
    ref = 0.7 * tau**-1.5
    ref[40] = -1e-4  # the estimator dips below 0 at its floor
    mi = ref * np.exp(0.3 * np.sin(tau))
    mi[45] = -2e-4
    r = dataclasses.replace(_recorded(), corpus_small_mi=ref.tolist(), text_points={"lstm_w64_d1": _model(mi.tolist())})
    for lags in ((1, 10), (1, 50), (10, 50)):
        keep = (tau >= lags[0]) & (tau <= lags[1])
        assert _lag_gaps(r, "lstm 64×1", lags)[0] == pytest.approx(curve_gap(mi, ref, keep), rel=1e-12)


def test_binary_comparisons_ask_for_the_fine_convergence_criterion():
    still = _seed(val_history=[0.5300, 0.5280, 0.5270, 0.5262, 0.5258, 0.5255], stopped="epochs", converged=True)
    assert _converged(still, fine=False) and not _converged(still, fine=True)
    flat = dataclasses.replace(still, val_history=[0.53, 0.526, 0.5255, 0.5255, 0.5255, 0.5255, 0.5255, 0.52549])
    assert _converged(flat, fine=True)
    assert _converged(dataclasses.replace(still, stopped="patience"), fine=True)
