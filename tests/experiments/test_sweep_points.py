"""The chapters' sweep points: deterministic records, replicates pooled correctly."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
import pytest
import torch

from seqmi.experiments import ch03_rnn_transformer_mi as ch03
from seqmi.experiments import ch06_attention_gradients as ch06
from seqmi.experiments.ch03_rnn_transformer_mi import _binary as ch03_binary
from seqmi.experiments.ch04_bipartite_mi_l2m import (CharLMSettings, GaussianSettings, char_lm, char_windows,
                                                     gaussian_points, matched_mamba_width,
                                                     pool_replicates, replicate_group, train_char_lm)
from seqmi.experiments.ch06_attention_gradients import (GridSettings, ProfileSettings, TransferSettings, grid_point,
                                                        profile_point, transfer_point)
from seqmi.models.attentive_rnn import TaskModel
from seqmi.models.lm import RNNLM
from seqmi.fit import decay_fits
from seqmi.info import two_point_mi
from seqmi.sweep import Budget, OutOfTime, run_sweep
from seqmi.convergence import converged
from seqmi.train import Sequences, TrainConfig

TINY = GaussianSettings(token_dim=2, layers=1, heads=2, max_len=16, d_state=2, steps=3, batch=2, warmup=1,
                        lr=1e-3, n_eval=2, seed=0)


@pytest.mark.parametrize("backbone", ["transformer", "mamba"])
def test_gaussian_point_is_deterministic_and_complete(backbone):
    a = gaussian_points([(backbone, 4, 16, 0)], None, TINY)[0]
    b = gaussian_points([(backbone, 4, 16, 0)], None, TINY)[0]
    assert a == b
    assert len(a["position_kl"]) == 16 and np.isfinite(a["average_kl"]) and a["average_kl"] > 0
    assert a["bipartite_mi"] > 0 and a["n_params"] > 0


def test_replicates_differ_and_pool_to_their_mean():
    recs = [gaussian_points([("transformer", 4, 16, r)], None, TINY)[0] for r in range(2)]
    assert recs[0]["position_kl"] != recs[1]["position_kl"]
    pooled = pool_replicates(recs)
    np.testing.assert_allclose(pooled["position_kl"], np.mean([r["position_kl"] for r in recs], axis=0))
    assert pooled["average_kl_replicates"] == [r["average_kl"] for r in recs]
    with pytest.raises(ValueError, match="at least one record"):
        pool_replicates([])


@pytest.mark.parametrize("backbone", ["transformer", "mamba"])
def test_replicates_trained_together_have_the_records_they_have_alone(backbone):
    points = [(backbone, 4, 16, r) for r in (2, 0, 1)]
    together = gaussian_points(points, None, TINY)
    assert together == [gaussian_points([point], None, TINY)[0] for point in points]  # bit for bit on the CPU
    assert len({r["average_kl"] for r in together}) == 3


def test_a_grouped_sweep_has_the_records_of_one_point_per_call():
    points = [("transformer", 4, 16, r) for r in range(3)] + [("mamba", 4, 16, 0)]
    alone = run_sweep(points, partial(gaussian_points, settings=TINY), cache_dir=None, progress=False,
                      group=replicate_group, group_size=1)
    grouped = run_sweep(points, partial(gaussian_points, settings=TINY), cache_dir=None, progress=False,
                        group=replicate_group, group_size=2)
    assert grouped.done == alone.done and grouped.keys == alone.keys


def test_only_replicates_of_one_model_train_together():
    for points in ([("transformer", 4, 16, 0), ("transformer", 8, 16, 1)],
                   [("transformer", 4, 16, 0), ("mamba", 4, 16, 0)],
                   [("transformer", 4, 16, 0), ("transformer", 4, 64, 0)], []):
        with pytest.raises(ValueError, match="replicates of one \\(backbone, width, L\\)"):
            gaussian_points(points, None, TINY)
    assert replicate_group(("mamba", 8, 64, 2)) == ("mamba", 8, 64)


def test_late_early_ratio():
    from seqmi.stats import late_early_ratio

    assert late_early_ratio(np.ones(16)) == 1.0
    rising = np.r_[np.ones(4), np.ones(4), np.ones(4), 3 * np.ones(4)]
    assert late_early_ratio(rising) == 3.0
    # a stack of replicates: one ratio per curve
    np.testing.assert_array_equal(late_early_ratio(np.stack([np.ones(16), rising])), [1.0, 3.0])
    with pytest.raises(ValueError, match="at least 4 positions"):
        late_early_ratio([1.0, 2.0])


# ---------------------------------------------------------------- chapter 06

GRID = GridSettings(hidden=4, steps=2, batch=2, lr=0.01, seed=0)
TRANSFER = TransferSettings(hidden=4, copy_length=2, copy_steps=3, eval_every=1, batch=2, lr=0.01,
                            transfer_lengths=(3, 5), transfer_batch=2, long_length=5, long_steps=2, long_lr=1e-3,
                            seed=0)
PROFILE = ProfileSettings(hidden=4, length=20, steps=2, batch=2, lr=0.01, seed=0, n_held_out=2)


def _untimed(record):
    """``record`` without its wall times, the one part that differs between identical runs."""
    if not isinstance(record, dict):
        return record
    return {k: _untimed(v) for k, v in record.items() if not k.startswith("seconds")}


@pytest.mark.parametrize("kind", TaskModel.KINDS)
def test_grid_point_is_deterministic_and_json_ready(kind):
    a = grid_point(("denoise", 10, kind, 0), None, GRID)
    assert _untimed(a) == _untimed(grid_point(("denoise", 10, kind, 0), None, GRID))
    assert json.loads(json.dumps(a)) == a
    assert len(a["step_losses"]) == 2 and 0 <= a["accuracy"] <= 1 and a["seconds_per_step"] > 0


def test_grid_replicates_differ_and_pool_to_their_mean():
    recs = [grid_point(("copy", 10, "rnn", r), None, GRID) for r in range(2)]
    assert recs[0]["step_losses"] != recs[1]["step_losses"]
    pooled = ch06.pool_replicates(recs)
    np.testing.assert_allclose(pooled["step_losses"], np.mean([r["step_losses"] for r in recs], axis=0))
    assert pooled["accuracy_replicates"] == [r["accuracy"] for r in recs]
    assert pooled["accuracy"] == pytest.approx(np.mean(pooled["accuracy_replicates"]))
    with pytest.raises(ValueError, match="at least one record"):
        ch06.pool_replicates([])


def test_transfer_point_is_deterministic_and_fine_tunes_relrnn_only():
    rel = transfer_point("relrnn", None, TRANSFER)
    assert _untimed(rel) == _untimed(transfer_point("relrnn", None, TRANSFER))
    assert json.loads(json.dumps(rel)) == rel
    assert rel["updates"] == len(rel["step_losses"]) == 3 and rel["eval_steps"] == [1, 2, 3]
    assert list(rel["transfer"]) == list(rel["symbol_attention_mass"]) == ["3", "5"]
    assert len(rel["long_run"]["eval_accuracy"]) == 2
    lstm = transfer_point("lstm", None, TRANSFER)
    assert lstm["symbol_attention_mass"] is None and lstm["long_run"] is None


def test_profile_point_is_deterministic_and_replicates_differ():
    a = profile_point((3, 2, 0), None, PROFILE)
    assert a == profile_point((3, 2, 0), None, PROFILE)
    assert np.all(np.isfinite(a["profile"])) and np.all(np.array(a["profile"]) > 0) and 0 <= a["accuracy"] <= 1
    assert a != profile_point((3, 4, 0), None, PROFILE)
    assert a["profile"] != profile_point((3, 2, 1), None, PROFILE)["profile"]


def test_denoise_point_keeps_one_curve_point_per_evaluation():
    settings = ch06.DenoiseSettings(hidden=4, length=20, steps=7, eval_every=3, batch=2, lr=0.01, seed=0)
    a = ch06.denoise_point(0, None, settings)
    assert {k: v for k, v in a.items() if k != "seconds_per_update"} == {
        k: v for k, v in ch06.denoise_point(0, None, settings).items() if k != "seconds_per_update"}
    assert a["updates"] == 7 and a["eval_steps"] == [3, 6] and len(a["eval_loss"]) == len(a["eval_accuracy"]) == 2
    assert a["steps_to_99"] is None and 0 <= a["accuracy"] <= 1 and json.dumps(a)
    assert ch06.denoise_point(1, None, settings)["eval_loss"] != a["eval_loss"], "a replicate has its own runs"


# ---------------------------------------------------------------- chapter 03

BINARY = ch03.BinarySettings(n_train=20, n_valid=10, length=16, mi_amplitude=0.1, mi_exponent=0.4, n_generate=10,
                             threshold=1e-3, max_epochs=2, patience=1, transformer_epochs=2, rnn_lr=0.01, lstm_lr=0.01,
                             transformer_lr=0.003, seed=0)
TEXT = ch03.TextSettings(train_chars=4000, generate=64, sample_sets=2, row=32, max_lag=8, patience=1, seed=0)
TIMING = ("tokens_per_s", "sample_s")


def measured(record):
    """A model's record without its timings (they differ from run to run), its seeds' too."""
    out = {k: v for k, v in record.items() if k not in TIMING}
    if "seeds" in out:
        out["seeds"] = [measured(s) for s in out["seeds"]]
    return out


def test_decay_fits_tell_exponential_from_power_law():
    tau = np.arange(1, 201)
    expo = decay_fits(0.1 * np.exp(-tau / 30.0), 1e-3)
    assert expo.xi == pytest.approx(30.0, rel=1e-9)
    assert expo.exp_rss < expo.pow_rss
    power = decay_fits(0.1 * tau ** -0.4, 1e-3)
    assert power.gamma == pytest.approx(0.4, rel=1e-9)
    assert power.pow_rss < power.exp_rss


def test_decay_fits_take_their_intervals_from_bootstrap_replicates():
    tau = np.arange(1.0, 101.0)
    # replicates whose decay length scatters between 25 and 35: the interval is that scatter
    lengths = np.linspace(25.0, 35.0, 201)
    reps = 0.1 * np.exp(-tau / lengths[:, None])
    fit = decay_fits(0.1 * np.exp(-tau / 30.0), 1e-3, reps)
    assert fit.xi == pytest.approx(30.0) and fit.ci_method == "bootstrap over rows (201 replicates)"
    assert fit.xi_ci == pytest.approx([25.1, 34.9], abs=0.2)
    assert decay_fits(0.1 * np.exp(-tau / 30.0), 1e-3).ci_method == "regression"
    # replicates that do not decay: a rate interval reaching 0 leaves xi unbounded above
    flat = np.vstack([reps[:190], np.tile(0.05 + 1e-4 * tau, (11, 1))])
    assert decay_fits(0.1 * np.exp(-tau / 30.0), 1e-3, flat).xi_ci[1] == float("inf")
    power = decay_fits(0.1 * tau ** -0.4, 1e-3, 0.1 * tau ** -np.linspace(0.35, 0.45, 101)[:, None])
    assert power.gamma_ci == pytest.approx([0.3525, 0.4475], abs=1e-3)


def test_decay_fits_without_enough_points_are_nan():
    out = decay_fits(np.full(10, 1e-5), 1e-3)
    assert out.n_fit_points == 0 and np.isnan(out.xi) and np.isnan(out.gamma)


def test_run_family_measures_every_model():
    rng = np.random.default_rng(0)
    x = (np.cumsum(rng.random((80, 32)) < 0.1, axis=1) % 2).astype(np.int64)
    makers = [lambda w=w: RNNLM(2, w, 1, "lstm", embed_dim=2) for w in (4, 2)]
    configs = [TrainConfig(lr=0.02, batch_size=20, max_epochs=3, restarts=1, seed=s) for s in (0, 1)]
    rec = ch03.run_family(makers, Sequences(x[:60], x[60:]), configs, sample_seeds=[0, 1], n_samples=50,
                          sample_length=32, max_lag=20, threshold=1e-3, head_tokens=5)
    wide, narrow = rec["models"]
    assert rec["train_s"] > 0 and len(wide["mi"]) == 20 and len(wide["head"]) == 5
    assert wide["state_floats"] == 8 and narrow["state_floats"] == 4 and wide["epochs"] == 3
    assert {"xi", "xi_ci", "gamma", "val_loss", "tokens_per_s", "sample_s", "params", "converged"} <= set(wide)
    assert wide["seeds"] == [{k: wide[k] for k in wide["seeds"][0]}] and wide["best_seed"] == 0
    with pytest.raises(ValueError, match="2 sample seeds for 1 configs"):
        ch03.run_family(makers[0], Sequences(x[:60], x[60:]), configs[:1], sample_seeds=[0, 1], n_samples=5,
                        sample_length=32, max_lag=20, threshold=1e-3)


def test_run_family_trains_and_measures_every_seed():
    rng = np.random.default_rng(0)
    x = (np.cumsum(rng.random((80, 32)) < 0.1, axis=1) % 2).astype(np.int64)
    config = TrainConfig(lr=0.02, batch_size=20, max_epochs=3, patience=1, restarts=1, seed=7)
    rec = ch03.run_family(lambda: RNNLM(2, 4, 1, "lstm", embed_dim=2), Sequences(x[:60], x[60:]), [config],
                          sample_seeds=[0], n_samples=30, sample_length=32, max_lag=10, threshold=1e-3,
                          seeds=(0, 1, 2))["models"][0]
    seeds = rec["seeds"]
    assert len(seeds) == 3 and len({s["val_loss"] for s in seeds}) == 3, "each seed its own weights"
    assert len({tuple(s["mi"]) for s in seeds}) == 3, "each seed its own samples"
    assert rec["best_seed"] == int(np.argmin(rec["seed_val_losses"])) and rec["mi"] == seeds[rec["best_seed"]]["mi"]
    for s in seeds:
        assert len(s["val_history"]) == s["epochs"] and s["stopped"] in ("epochs", "patience")
        assert s["converged"] == converged(s["val_history"], s["stopped"])
    # a seed's model does not depend on how many seeds train beside it
    alone = ch03.run_family(lambda: RNNLM(2, 4, 1, "lstm", embed_dim=2), Sequences(x[:60], x[60:]), [config],
                            sample_seeds=[0], n_samples=30, sample_length=32, max_lag=10, threshold=1e-3)["models"][0]
    assert alone["val_loss"] == seeds[0]["val_loss"] and alone["mi"] == seeds[0]["mi"]
    assert rec["seed_indices"] == [0, 1, 2]
    # seed 2 alone is the third model of the three: a run adds seeds to an earlier run's
    third = ch03.run_family(lambda: RNNLM(2, 4, 1, "lstm", embed_dim=2), Sequences(x[:60], x[60:]), [config],
                            sample_seeds=[0], n_samples=30, sample_length=32, max_lag=10, threshold=1e-3,
                            seeds=(2,))["models"][0]
    assert third["val_loss"] == seeds[2]["val_loss"] and third["mi"] == seeds[2]["mi"]
    with pytest.raises(ValueError, match="seeds"):
        ch03.run_family(lambda: RNNLM(2, 4, 1, "lstm", embed_dim=2), Sequences(x[:60], x[60:]), [config],
                        sample_seeds=[0], n_samples=30, sample_length=32, max_lag=10, threshold=1e-3, seeds=(-1,))


def test_sample_sets_keep_the_first_set_and_add_independent_ones():
    rng = np.random.default_rng(0)
    x = (np.cumsum(rng.random((80, 32)) < 0.1, axis=1) % 2).astype(np.int64)
    config = [TrainConfig(lr=0.02, batch_size=20, max_epochs=2, restarts=1, seed=0)]
    common = dict(sample_seeds=[3], n_samples=40, sample_length=32, max_lag=10, threshold=1e-3)

    def run(**kw):
        torch.manual_seed(0)
        return ch03.run_family(lambda: RNNLM(2, 4, 1, "lstm", embed_dim=2), Sequences(x[:60], x[60:]), config,
                               **common, **kw)["models"][0]

    one, three = run(), run(sample_sets=3)
    assert "mi_sets" not in one and one["mi"] == three["mi"] == three["mi_sets"][0]
    assert len(three["mi_sets"]) == 3 and three["mi_sets"][1] != three["mi_sets"][2]
    with pytest.raises(ValueError, match="sample_sets"):
        run(sample_sets=0)


def test_long_range_shape_reads_excess_and_decay_with_batch_errors():
    lags = np.arange(1, 31, dtype=float)
    train = 0.01 * lags ** -1.0
    flat = np.full(30, 2e-3)
    # batches scatter by +-1e-4 around each curve: the errors are that spread over sqrt(4)
    wobble = 1e-4 * np.array([-1.0, 1.0, -1.0, 1.0])[:, None]
    g = ch03.long_range_shape((flat, flat + wobble), (train, train + wobble), start=10)
    assert g["excess"] == pytest.approx(2e-3 - train[9:].mean())
    assert g["excess_se"] == pytest.approx(np.hypot(1e-4, 1e-4) * np.sqrt(4 / 3) / 2)
    assert g["decay"] == pytest.approx(0.0) and g["decay_se"] == pytest.approx(0.0)
    assert g["train_decay"] == pytest.approx(train[9:16].mean() - train[-7:].mean())
    with pytest.raises(ValueError, match="share their lags"):
        ch03.long_range_shape((flat[:20], flat[None, :20]), (train, train[None]), start=10)
    with pytest.raises(ValueError, match="start"):
        ch03.long_range_shape((flat, flat[None]), (train, train[None]), start=29)


def test_curve_gap_is_the_mean_log_mismatch_over_the_kept_lags():
    ref = np.array([0.4, 0.2, 0.1, 0.05])
    mi = ref * np.exp([0.5, -0.5, 1.0, 3.0])
    assert ch03.curve_gap(mi, ref, [True, True, True, False]) == pytest.approx(2 / 3)
    # lags where either curve is at or below 0 do not count
    assert ch03.curve_gap([0.4, -1e-4, 0.1, 0.1], ref, np.ones(4, bool)) == pytest.approx(np.log(2) / 3)
    assert np.isnan(ch03.curve_gap(mi, ref, np.zeros(4, bool)))
    with pytest.raises(ValueError, match=r"same lags, got shapes \(4,\), \(3,\)"):
        ch03.curve_gap(mi, ref[:3], np.ones(4, bool))


def test_set_gaps_cycle_through_the_references():
    keep = np.ones(2, bool)
    refs = [np.array([0.1, 0.1]), np.array([0.2, 0.2])]
    sets = [np.array([0.1, 0.1])] * 3
    assert ch03.set_gaps(sets, refs, keep) == pytest.approx([0.0, np.log(2), 0.0])
    with pytest.raises(ValueError, match="reference"):
        ch03.set_gaps(sets, [], keep)


def test_reference_curves_use_disjoint_samples_of_the_rows():
    rng = np.random.default_rng(0)
    rows = rng.integers(0, 3, (10, 40))
    refs = ch03.reference_curves(rows, 3, 5, seed=1)
    assert len(refs) == 3 and all(len(r) == 5 for r in refs)
    assert not np.allclose(refs[0], refs[1])
    # the same seed, the same samples; fewer rows than asked: one sample of all of them
    assert np.array_equal(refs[2], ch03.reference_curves(rows, 3, 5, seed=1)[2])
    whole, = ch03.reference_curves(rows, 50, 5, seed=1)
    assert np.allclose(whole, two_point_mi(rows, 5))


def test_models_group_into_families_and_back():
    models = ch03.model_grid({"rnn": [2, 8], "lstm": [2, 8]}, {"rnn": ([8], [1, 2]), "lstm": ([8, 4], [1, 2])})
    assert models == [("rnn", 2, 1), ("rnn", 8, 1), ("lstm", 2, 1), ("lstm", 8, 1), ("rnn", 8, 2),
                      ("lstm", 8, 2), ("lstm", 4, 1), ("lstm", 4, 2)]
    points = ch03.families(models)
    assert points == [("rnn", (2, 8), 1), ("lstm", (2, 8, 4), 1), ("rnn", (8,), 2), ("lstm", (8, 4), 2)]
    assert sorted(ch03.members(points)) == sorted(models)
    done = {p: {"models": [{"width": w} for w in p[1]]} for p in points}
    assert all(r["width"] == w for (_, w, _), r in ch03.by_model(done).items())
    seeded = ch03.seed_families(points[:2], {"rnn": [3, 4], "lstm": [3, 4]})
    assert seeded == [("rnn", (2, 8), 1, 3), ("rnn", (2, 8), 1, 4), ("lstm", (2, 8, 4), 1, 3), ("lstm", (2, 8, 4), 1, 4)]
    assert ch03.members(seeded) == ch03.members(points[:2])
    assert ch03.seed_families(points[:2], {"rnn": [0], "lstm": [5, 6]}) == [
        ("rnn", (2, 8), 1, 0), ("lstm", (2, 8, 4), 1, 5), ("lstm", (2, 8, 4), 1, 6)]
    with pytest.raises(ValueError, match="distinct"):
        ch03.seed_families(points, {"rnn": [1, 1], "lstm": [0]})
    with pytest.raises(ValueError, match="no seeds given for kind 'lstm'"):
        ch03.seed_families(points, {"rnn": [0]})


def test_seed_points_merge_into_the_family_record_of_one_run():
    """Seeds trained as separate points read back as the family trained with all of them."""
    rng = np.random.default_rng(0)
    x = (np.cumsum(rng.random((80, 32)) < 0.1, axis=1) % 2).astype(np.int64)
    configs = [TrainConfig(lr=0.02, batch_size=20, max_epochs=2, restarts=1, seed=7),
               TrainConfig(lr=0.01, batch_size=20, max_epochs=2, restarts=1, seed=8)]
    makers = [lambda: RNNLM(2, 2, 1, "lstm", embed_dim=2), lambda: RNNLM(2, 4, 1, "lstm", embed_dim=2)]

    def family(seeds):
        return ch03.run_family(makers, Sequences(x[:60], x[60:]), configs, sample_seeds=[0, 1], n_samples=30,
                               sample_length=32, max_lag=10, threshold=1e-3, seeds=seeds)

    point = ("lstm", (2, 4), 1)
    together = family((3, 5))
    apart = ch03.merge_seeds({(*point, s): family((s,)) for s in (5, 3)}, {"lstm": [3, 5]})[point]
    for a, b in zip(together["models"], apart["models"]):
        # as JSON: NaN fields (an unfittable form's interval) compare equal there
        assert json.dumps(measured(a), sort_keys=True) == json.dumps(measured(b), sort_keys=True)
        assert a["seed_indices"] == b["seed_indices"] == [3, 5] and a["best_seed"] == b["best_seed"]
    # a family with a seed pending is pending; seeds of other runs are left out
    assert ch03.merge_seeds({(*point, 3): family((3,))}, {"lstm": [3, 5]}) == {}
    only = ch03.merge_seeds({(*point, s): family((s,)) for s in (3, 5)}, {"lstm": [5]})[point]
    assert [m["seed_indices"] for m in only["models"]] == [[5], [5]]


def test_a_binary_model_is_the_same_alone_or_in_its_family():
    family = ch03.binary_points([("lstm", (2, 4), 1, 0)], None, BINARY)[0]
    alone = ch03.binary_points([("lstm", (4,), 1, 0)], None, BINARY)[0]
    assert measured(family["models"][1]) == measured(alone["models"][0])
    assert family["models"][0]["mi"] != family["models"][1]["mi"]
    assert len(alone["models"][0]["mi"]) == BINARY.length - 1
    with pytest.raises(ValueError, match="kind"):
        ch03.binary_points([("gru", (4,), 1, 0)], None, BINARY)
    with pytest.raises(ValueError, match="kind, widths, depth, seed"):
        ch03.binary_points([("lstm", (4,), 1)], None, BINARY)
    with pytest.raises(ValueError, match="seeds of one family"):
        ch03.binary_points([("lstm", (4,), 1, 0), ("lstm", (2,), 1, 1)], None, BINARY)


def test_seeds_trained_together_keep_the_records_they_have_alone():
    """Three RNN seeds share one batched step; each seed's record is its record alone, bit for bit."""
    points = [("rnn", (2, 4), 1, s) for s in (0, 1, 2)]
    together = ch03.binary_points(points, None, BINARY)
    for point, record in zip(points, together):
        alone, = ch03.binary_points([point], None, BINARY)
        assert [measured(m) for m in record["models"]] == [measured(m) for m in alone["models"]]
        assert record["models"][0]["seed_indices"] == [point[3]]
    assert together[0]["models"][1]["val_loss"] != together[1]["models"][1]["val_loss"]


def test_a_spent_budget_stops_a_family_that_resumes_to_the_same_record(tmp_path, monkeypatch):
    point = ("transformer", (4,), 1, 0)
    whole = ch03.binary_points([point], None, BINARY)[0]
    with monkeypatch.context() as m:
        m.setattr(ch03_binary, "current_budget", lambda: Budget(1e-9))
        with pytest.raises(OutOfTime):
            ch03.binary_points([point], str(tmp_path), BINARY)[0]
    assert (tmp_path / "checkpoint.pt").is_file()
    resumed = ch03.binary_points([point], str(tmp_path), BINARY)[0]
    assert measured(resumed["models"][0]) == measured(whole["models"][0])


def test_more_generated_sequences_measure_the_trained_checkpoint_again(tmp_path):
    point = ("rnn", (4,), 1, 0)
    first = ch03.binary_points([point], str(tmp_path), BINARY)[0]
    more = replace(BINARY, n_generate=40)
    assert ch03.training_spec(more) == ch03.training_spec(BINARY) != ch03.training_spec(replace(BINARY, n_train=21))
    again = ch03.binary_points([point], str(tmp_path), more)[0]
    # the final checkpoint is read back, not trained again: a new training would time itself anew
    assert again["train_busy_s"] == first["train_busy_s"] > 0, "the checkpoint keeps what the training cost"
    assert again["models"][0]["val_loss"] == first["models"][0]["val_loss"]
    assert measured(again["models"][0]) == measured(ch03.binary_points([point], None, more)[0]["models"][0])


def test_text_training_specs_leave_out_the_measurement_only():
    char = ch03.CharSettings(TEXT, window=16, epochs=1, lstm_batch=4, transformer_batch=8, transformer_lr=0.003)
    spec = ch03.training_spec(char)
    assert spec["text"] == {"train_chars": 4000, "patience": 1, "seed": 0}  # no device
    assert spec == ch03.training_spec(replace(char, text=replace(TEXT, generate=640, row=64, max_lag=16,
                                                                 sample_sets=5)))


@pytest.mark.parametrize("point, settings", [
    (("lstm", (4,), 1, 0), ch03.CharSettings(TEXT, window=16, epochs=1, lstm_batch=4, transformer_batch=8,
                                          transformer_lr=0.003)),
    (("word_transformer", (8,), 1, 0), ch03.WordSettings(TEXT, min_count=2, window=16, epochs=1, lstm_batch=4,
                                                      lstm_lr=1.0, dropout=0.1, transformer_batch=8,
                                                      transformer_lr=0.003)),
])
def test_text_points_measure_characters(point, settings):
    if isinstance(settings, ch03.CharSettings):
        compute, alphabet = ch03.char_point, ch03.char_corpus(TEXT.train_chars).vocab
    else:
        compute, alphabet = ch03.word_point, ch03.word_corpus(TEXT.train_chars, settings.min_count).chars
    record, = compute(point, None, settings)["models"]
    assert len(record["mi"]) == TEXT.max_lag and np.isfinite(record["mi"]).all()
    # the first sample set is the measured one; the others are drawn independently
    first, second = record["mi_sets"]
    assert first == record["mi"] and second != first and len(second) == TEXT.max_lag
    # word models too write characters: the head is one row of text
    assert len(alphabet.decode(record["head"])) == TEXT.row
    assert np.isfinite(record["val_loss"])


def test_sample_chunks_split_every_temperature_evenly():
    from seqmi.experiments.ch04_bipartite_mi_l2m import SAMPLE_CHUNK, sample_chunks

    points, chars = sample_chunks(1_000_000, [0.7, 1.3])
    assert chars == SAMPLE_CHUNK and points == [(t, c) for t in (0.7, 1.3) for c in range(20)]
    assert sample_chunks(20_000, [1]) == ([(1.0, 0)], 20_000)
    points, chars = sample_chunks(120_000, [1.0])
    assert len(points) == 3 and chars == 40_000
    with pytest.raises(ValueError, match="total_chars"):
        sample_chunks(0, [1.0])


def test_compact_run_averages_blocks_of_rollouts():
    record = {"success_curve": [0.0, 1.0] * 150, "return_curve": [0.5] * 300, "env_steps": list(range(10, 3010, 10)),
              "busy_s": 1.0, "evaluation": {}}
    short = ch06.compact_run(record, points=100)
    assert len(short["success_curve"]) == len(short["env_steps"]) == 100
    assert short["success_curve"] == [pytest.approx(0.5, abs=0.17)] * 100 and short["return_curve"][0] == 0.5
    assert short["env_steps"][-1] == 3000 and short["busy_s"] == 1.0
    assert ch06.compact_run(record, points=300) is record
    with pytest.raises(ValueError, match="points"):
        ch06.compact_run(record, points=0)


CHAR = CharLMSettings(depth=1, heads=2, d_state=2, window=8, steps=3, batch=2, lr=1e-3, seed=0)


def test_char_windows_are_deterministic_windows_of_the_text():
    text = np.arange(100)
    rows = char_windows(text, CHAR)
    assert rows.shape == (CHAR.steps * CHAR.batch, CHAR.window)
    # every row is a contiguous piece of the text
    np.testing.assert_array_equal(np.diff(rows, axis=1), 1)
    np.testing.assert_array_equal(rows, char_windows(text, CHAR))
    assert not np.array_equal(rows, char_windows(text, replace(CHAR, seed=1)))
    with pytest.raises(ValueError, match="longer than the window"):
        char_windows(np.arange(8), CHAR)


def test_matched_mamba_width_is_the_closest_parameter_count():
    target = sum(p.numel() for p in char_lm("transformer", 20, 16, CHAR).parameters())
    width = matched_mamba_width(20, target, CHAR, max_width=64)
    size = {w: sum(p.numel() for p in char_lm("mamba", 20, w, CHAR).parameters()) for w in range(4, 65, 4)}
    assert width % 4 == 0 and abs(size[width] - target) == min(abs(v - target) for v in size.values())
    with pytest.raises(ValueError, match="kind"):
        char_lm("lstm", 20, 8, CHAR)


@pytest.mark.parametrize("kind", ["transformer", "mamba"])
def test_a_checkpointed_char_model_is_read_back(kind, tmp_path):
    text = np.random.default_rng(0).integers(0, 20, 200)
    data = Sequences(char_windows(text, CHAR), text[:16].reshape(2, 8))
    first = train_char_lm(kind, 20, 8, data, CHAR, cache_dir=str(tmp_path))
    again = train_char_lm(kind, 20, 8, data, CHAR, cache_dir=str(tmp_path))
    assert len(list(tmp_path.iterdir())) == 1
    for a, b in zip(first.model.state_dict().values(), again.model.state_dict().values()):
        assert torch.equal(a, b)
    assert again.best_val_loss == first.best_val_loss
    # other data is another checkpoint, not the first one's weights
    other = Sequences(data.train[::-1].copy(), data.valid)
    train_char_lm(kind, 20, 8, other, CHAR, cache_dir=str(tmp_path))
    assert len(list(tmp_path.iterdir())) == 2


def test_chapter_03_asks_for_the_generated_sequences_its_data_bootstrap_needs():
    import jupytext

    from seqmi.info import two_point_mi_bootstrap
    from seqmi.validate import check_int

    chapter = jupytext.read(Path(__file__).parents[2] / "notebooks" / "03_rnn_transformer_mi.md")
    check = next(line for cell in chapter.cells for line in cell.source.splitlines()
                 if line.startswith('check_int("n_generate"'))
    with pytest.raises(ValueError, match="n_generate must be in .*got 99"):
        exec(check, {"check_int": check_int, "n_generate": 99})
    exec(check, {"check_int": check_int, "n_generate": 100})
    two_point_mi_bootstrap(np.zeros((100, 8), dtype=np.int64), 2, 2)  # the chapter's bootstrap of the data
    with pytest.raises(ValueError):
        two_point_mi_bootstrap(np.zeros((99, 8), dtype=np.int64), 2, 2)


def test_subsample_control_scores_the_split_against_same_size_training_subsamples():
    rng = np.random.default_rng(0)
    train_rows = rng.integers(0, 3, size=(60, 400))
    valid_mi = two_point_mi(train_rows[:10], 20)
    train_mi = two_point_mi(train_rows, 20)
    g = ch03.subsample_control(train_rows, valid_mi, train_mi, 10, 5, np.random.default_rng(1), draws=4)
    draws = np.random.default_rng(1)
    null = [two_point_mi(train_rows[np.sort(draws.choice(60, 10, replace=False))], 20)[4:].mean() for _ in range(4)]
    assert g["null_mean"] == pytest.approx(np.mean(null), rel=1e-12)
    assert g["z_valid"] == pytest.approx((valid_mi[4:].mean() - np.mean(null)) / np.std(null, ddof=1), rel=1e-9)
    # the whole split's floor is lower than a tenth of it: a sample-size effect shows
    assert g["train"] < g["null_mean"] and g["z_train"] < 0
    with pytest.raises(ValueError, match="n_rows"):
        ch03.subsample_control(train_rows, valid_mi, train_mi, 61, 5, np.random.default_rng(1))


def test_a_record_is_built_from_the_parameters_of_its_field_names():
    from seqmi.experiments import from_parameters
    from seqmi.experiments.ch02_binary_sequences import DesignSettings

    chapter = book_parameters("02_binary_sequences")
    settings = from_parameters(DesignSettings, {**chapter, "unrelated": object()})
    assert settings == DesignSettings(**{f: chapter[f] for f in DesignSettings.__dataclass_fields__})
    # the record still checks what it receives, and a field no parameter names is an error naming it
    with pytest.raises(ValueError, match="n_seq"):
        from_parameters(DesignSettings, {**chapter, "n_seq": 0})
    with pytest.raises(ValueError, match=r"DesignSettings needs the parameter\(s\) \['amplitude'\]"):
        from_parameters(DesignSettings, {k: v for k, v in chapter.items() if k != "amplitude"})


def book_parameters(chapter):
    """A chapter's parameters cell as a dict of its defaults."""
    from seqmi import book

    root = Path(__file__).resolve().parents[2]
    return {name: p.default for name, p in book.declared_parameters(book.read_chapter(root, chapter)).items()}


def test_a_record_of_a_prefix_reads_its_own_parameters_first_and_the_shared_ones_after():
    from seqmi.experiments import from_parameters
    from seqmi.experiments.ch02_binary_sequences import DesignSettings

    chapter = book_parameters("02_binary_sequences")
    own = from_parameters(DesignSettings, {**chapter, "pilot_n_seq": 70, "pilot_seed": 3}, "pilot_")
    assert own.n_seq == 70 and own.seed == 3 and own.amplitude == chapter["amplitude"]
    assert from_parameters(DesignSettings, chapter, "pilot_", n_seq=90).n_seq == 90
    with pytest.raises(ValueError, match=r"DesignSettings has no field\(s\) \['n_seqs'\]"):
        from_parameters(DesignSettings, chapter, n_seqs=9)
    with pytest.raises(ValueError, match=r"needs the parameter\(s\) \['pilot_amplitude'\]"):
        from_parameters(DesignSettings, {k: v for k, v in chapter.items() if k != "amplitude"}, "pilot_")
