"""Chapter 06's verdicts on trained models: Fig. 3's gradient decay and its contrasts over
seeds, the seed counts a pilot asks for, and the seeds each rule names (Fig. 3, Table 4)."""

import doctest
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from seqmi import claims, stats
from seqmi.claims import ch06_attention_gradients as ch06
from seqmi.experiments import ch06_records as rec
from seqmi.experiments import ch06_attention_gradients as exp06
from seqmi.models.attentive_rnn import hidden_gradient_profile

RECORDED = Path(__file__).parents[1] / "results" / "reference" / "06_attention_gradients" / "results.json"
SETTINGS = [(15, x) for x in rec.SWEPT] + [(x, 15) for x in rec.SWEPT]
T = 20


def _profile(decay: float, length: int = T, level: float = -4.0) -> list[float]:
    """Norms whose log10 falls linearly by ``decay`` decades from the last input step back to
    the first, followed by the 11 steps of the marker and the recall."""
    distance = np.arange(length)[::-1]
    logs = level - decay * distance / (length - 1)
    return (10 ** np.concatenate([logs, np.full(11, level + 1.0)])).tolist()


def _fig3(decays: dict[str, list[float]], recall: float = 0.99, first_seed: int = 4) -> dict:
    """A recording of the Fig. 3 section alone: every setting's decay per seed given."""
    n = len(next(iter(decays.values())))
    return {"profile": "reference",
            "gradient_profiles": {k: [_profile(d) for d in v] for k, v in decays.items()},
            "gradient_accuracy": {k: [recall] * n for k in decays},
            "fig3_settings": {"steps": 10_000, "length": T, "first_seed": first_seed, "held_out_batches": 32,
                              "held_out_sequences": 32}}


def _decays(rho3: list[float]) -> dict[str, list[float]]:
    """Every setting decays by 0.2 decades (plus a small per-seed wiggle), rho = 3 as given."""
    decays = {f"nu={nu},rho={rho}": [0.2 + 0.01 * i for i in range(len(rho3))] for nu, rho in SETTINGS}
    decays["nu=15,rho=3"] = rho3
    return decays


def test_the_module_examples_hold():
    assert doctest.testmod(ch06).failed == 0


@pytest.mark.parametrize("decay", [-1.5, 0.0, 0.3, 2.0])
def test_gradient_decay_reads_the_fall_of_a_log_linear_profile(decay):
    # the recall steps after the input (here a decade above it) are not part of the fit
    assert rec.gradient_decay(_profile(decay), T) == pytest.approx(decay, abs=1e-9)


def test_gradient_decay_fits_a_line_rather_than_reading_the_extremes():
    profile = np.array(_profile(1.0))
    profile[T // 2] *= 1e3  # one step three decades off: the spread would jump, the fit moves little
    assert abs(rec.gradient_decay(profile, T) - 1.0) < 0.1


@pytest.mark.parametrize("length", [1, T + 12, 2.5, True])
def test_gradient_decay_rejects_a_bad_length(length):
    with pytest.raises(ValueError, match=f"length must be .* got {length!r}"):
        rec.gradient_decay(_profile(1.0), length)


@pytest.mark.parametrize("bad", [0.0, -1.0, np.inf, np.nan])
def test_gradient_decay_rejects_a_norm_that_is_not_positive_and_finite(bad):
    profile = _profile(1.0)
    profile[3] = bad
    with pytest.raises(ValueError, match="positive and finite"):
        rec.gradient_decay(profile, T)


def test_gradient_decays_take_one_profile_per_seed_or_a_bare_one():
    decays = rec.gradient_decays({"a": [_profile(0.5), _profile(1.0)], "b": _profile(2.0)}, T)
    np.testing.assert_allclose(decays["a"], [0.5, 1.0], atol=1e-9)
    np.testing.assert_allclose(decays["b"], [2.0], atol=1e-9)


def test_fig3_contrasts_pair_the_settings_of_one_seed():
    values = {f"nu={nu},rho={rho}": [1.0, 2.0] for nu, rho in SETTINGS}
    values["nu=15,rho=3"] = [2.0, 1.0]
    values["nu=3,rho=15"] = [1.5, 2.5]
    c = rec.fig3_contrasts(values)
    assert c["rho3_margin"].tolist() == [1.0, -1.0]
    assert c["range_gap"].tolist() == [0.5, 0.5]


def _sample(mean: float, sd: float, n: int) -> np.ndarray:
    """``n`` values with exactly this mean and standard deviation (ddof 1)."""
    z = np.linspace(-1, 1, n)
    return mean + sd * (z - z.mean()) / z.std(ddof=1)


@pytest.mark.parametrize("mean, sd, threshold", [(-0.84, 0.64, 0.0), (0.56, 0.37, 0.0), (0.69, 0.18, 0.5)])
def test_seeds_to_decide_is_the_first_count_whose_interval_leaves_the_threshold_out(mean, sd, threshold):
    n = stats.seeds_to_decide(_sample(mean, sd, 4), threshold=threshold)
    lo, hi = stats.mean_ci(_sample(mean, sd, n))
    assert not lo <= threshold <= hi
    if n > 2:
        lo, hi = stats.mean_ci(_sample(mean, sd, n - 1))
        assert lo <= threshold <= hi


def test_seeds_to_decide_gives_two_groups_as_many_seeds_each():
    a, b = _sample(0.53, 0.03, 7), _sample(0.50, 0.05, 7)
    n = stats.seeds_to_decide(a, b)
    lo, _ = stats.mean_diff_ci(_sample(0.53, 0.03, n), _sample(0.50, 0.05, n))
    assert lo > 0
    lo, _ = stats.mean_diff_ci(_sample(0.53, 0.03, n - 1), _sample(0.50, 0.05, n - 1))
    assert lo <= 0
    # no spread: two seeds decide any effect; no effect: no count does
    assert stats.seeds_to_decide([1.0, 1.0]) == 2 and stats.seeds_to_decide([-1.0, 1.0]) is None
    assert stats.seeds_to_decide([-1.0, 1.0, 0.01], limit=1000) is None


@pytest.mark.parametrize("groups", [([1.0],), ([1.0, 2.0], [1.0]), ([1.0, 2.0],) * 3, ()])
def test_seeds_to_decide_rejects_what_is_not_one_or_two_groups_of_seeds(groups):
    with pytest.raises(ValueError, match="one or two groups of at least two values"):
        stats.seeds_to_decide(*groups)


def test_seed_range_names_the_seeds_and_those_set_aside():
    assert rec.seed_range(10, 20) == "seeds 10–29 (seeds 0–9 set aside for the pilot)"
    assert rec.seed_range(0, 3) == "seeds 0–2"
    for first, n in ((0, 0), (-1, 3)):
        with pytest.raises(ValueError, match=f"first={first}, n={n}"):
            rec.seed_range(first, n)


@pytest.mark.parametrize("rho3, recall, verdict", [
    ([1.2, 1.3, 1.1], 0.99, "reproduced"),  # rho = 3 loses a decade more than the rest in every seed
    ([-0.8, -0.7, -0.9], 0.99, "not reproduced"),  # its gradient grows with distance: the margin is below 0
    ([1.2, -0.8, 1.1], 0.99, "inconclusive"),  # seeds disagree: the interval straddles 0
    ([1.2, 1.3, 1.1], 0.2, "inconclusive"),  # models still on the plateau: no verdict whatever the decays
    ([1.2], 0.99, "inconclusive"),  # one seed measures no spread between seeds
])
def test_fig3_is_decided_over_seeds_of_trained_models(rho3, recall, verdict):
    decided = ch06.rules(_fig3(_decays(rho3), recall))
    # a recording of the Fig. 3 section alone gets its one claim
    assert [c.id for c in decided] == ["kerg2020.fig3.rho-destabilises"]
    fig3 = decided[0]
    assert fig3.verdict == verdict
    assert fig3.value == pytest.approx(np.mean([x - 0.2 - 0.01 * i for i, x in enumerate(rho3)]))
    # the decisive seeds are named, and the pilot's set aside
    assert "0–3 set aside for the pilot" in fig3.rule and "32 held-out batches" in fig3.scale
    assert (f"seeds 4–{3 + len(rho3)}" if len(rho3) > 1 else "seed 4") in fig3.rule
    if recall < ch06.PLATEAU_EXIT:
        assert "past the Denoise plateau" in fig3.scale
    elif len(rho3) == 1:
        assert fig3.ci is None and "≥ 3 seeds" in fig3.scale
    elif verdict == "inconclusive":
        need = stats.seeds_to_decide(rec.fig3_contrasts(_decays(rho3))["rho3_margin"])
        assert f"ask for ≈ {need} seeds per setting" in fig3.scale


def test_fig3_says_when_no_number_of_seeds_decides_it():
    decays = _decays([0.2, 0.21, 0.22])  # rho = 3 exactly as the others: a margin of 0 in every seed
    fig3 = ch06.rules(_fig3(decays))[0]
    assert fig3.verdict == "inconclusive" and "too close to 0" in fig3.scale


def test_a_recording_before_the_averaged_profiles_is_decided_on_its_one_batch():
    # such a recording had three seeds per setting and no fig3_settings
    r = json.loads(RECORDED.read_text())["results"]
    del r["fig3_settings"]
    r["gradient_profiles"] = {k: v[:3] for k, v in r["gradient_profiles"].items()}
    r["gradient_accuracy"] = {k: v[:3] for k, v in r["gradient_accuracy"].items()}
    fig3 = claims.by_id(ch06.rules(r), "kerg2020.fig3.rho-destabilises")
    decays = rec.gradient_decays(r["gradient_profiles"], r["settings"]["profile_length"])
    assert fig3.value == pytest.approx(rec.fig3_contrasts(decays)["rho3_margin"].mean())
    assert "seeds 0–2," in fig3.scale and "1 held-out batch of 32" in fig3.scale
    assert "set aside" not in fig3.rule


def _minigrid(first_seed: int, rel: list[float], base: list[float]) -> dict:
    """The recorded reference results with a MiniGrid sweep on seeds from ``first_seed``."""
    r = json.loads(RECORDED.read_text())["results"]
    envs = ["MiniGrid-MemoryS7-v0", "MiniGrid-MemoryS13-v0"]

    def run(reward: float) -> dict:
        ev = {"episodes": 100, "successes": 100 * reward, "success": reward, "mean_return": reward,
              "mean_length": 10.0}
        return {"env_steps": [1000, 2000], "success_curve": [0.5, reward], "evaluation": {e: ev for e in envs}}

    runs = {f"{k}/{first_seed + i}": run(v) for k, values in (("full", base), ("relevancy", rel))
            for i, v in enumerate(values)}
    r["minigrid"] = {"train_env": envs[0], "test_envs": envs[1:], "kinds": ["full", "relevancy"],
                     "replicates": len(rel), "first_seed": first_seed, "updates": 2, "n_envs": 64,
                     "eval_episodes": 100, "lr": 1e-3, "runs": runs}
    return r


def test_table4_reads_and_names_the_seeds_of_a_fresh_run():
    rel, base = [0.45, 0.75, 0.60], [0.55, 0.72, 0.60]
    r = _minigrid(10, rel, base)
    assert list(rec.minigrid_seeds(r["minigrid"])) == [10, 11, 12]
    np.testing.assert_allclose(rec.minigrid_rewards(r["minigrid"], "relevancy", "MiniGrid-MemoryS7-v0"), rel)
    rows = [claims.by_id(ch06.rules(r), f"kerg2020.table4.memory-{x}") for x in ("solved", "train")]
    for c in rows:
        assert "seeds 10–12 (seeds 0–9 set aside for the pilot)" in c.rule and "seeds 10–12" in c.scale
    # the seed count asked for is the t-interval count at the run's means and spreads
    assert rows[0].verdict == "inconclusive"
    assert f"asks for ≈ {stats.seeds_to_decide(rel, threshold=0.5)} seeds" in rows[0].scale
    assert f"asks for ≈ {stats.seeds_to_decide(rel, base)} seeds" in rows[1].scale


def test_a_sweep_recorded_before_the_seed_offset_starts_at_seed_0():
    r = json.loads(RECORDED.read_text())["results"]
    assert "first_seed" not in r["minigrid"]
    assert rec.minigrid_seeds(r["minigrid"]) == range(r["minigrid"]["replicates"])
    assert "seeds 0–6 of" in claims.by_id(ch06.rules(r), "kerg2020.table4.memory-train").rule
    # its seeds were raised after looking: the interval that excludes 0.5 is the pilot's, held back
    solved = claims.by_id(ch06.rules(r), "kerg2020.table4.memory-solved")
    assert solved.verdict == "inconclusive" and "reproduced by its interval, held back" in solved.scale
    assert solved.ci[0] > 0.5


PROFILE = exp06.ProfileSettings(hidden=4, length=T, steps=2, batch=2, lr=0.01, seed=0, n_held_out=3,
                                held_out_batches=4)


def test_a_profile_is_the_geometric_mean_over_its_held_out_batches():
    from seqmi.data.copy_tasks import denoise_task
    from seqmi.rng import child_seed

    torch.manual_seed(0)
    model = exp06.TaskModel("relrnn", exp06.N_IN, exp06.N_OUT, 4, nu=3, rho=2)
    cpu = torch.device("cpu")
    batches = [hidden_gradient_profile(model, *denoise_task(3, T, child_seed(0, "profile", "held-out", b)), cpu)
               for b in range(4)]
    profile = exp06.held_out_profile(model, PROFILE, cpu)
    assert profile.shape == (T + 11,)
    np.testing.assert_allclose(profile, np.prod(batches, axis=0) ** 0.25, rtol=1e-10)
    # every batch differs, so one batch alone is not the average
    assert not np.allclose(profile, batches[0])


def test_profile_point_records_the_averaged_profile_and_its_seed_decides_the_model():
    a = exp06.profile_point((3, 2, 4), None, PROFILE)
    assert set(a) == {"profile", "accuracy", "device"} and len(a["profile"]) == T + 11
    assert a == exp06.profile_point((3, 2, 4), None, PROFILE)
    # a pilot's seed and a decisive run's seed train different models
    assert a["profile"] != exp06.profile_point((3, 2, 0), None, PROFILE)["profile"]
    for name in ("n_held_out", "held_out_batches"):
        with pytest.raises(ValueError, match=name):
            exp06.ProfileSettings(hidden=4, length=T, steps=1, batch=2, lr=0.01, seed=0, **{name: 0})


@pytest.mark.parametrize("section, n_cells, saved_keys", [
    ("fig3", 3, ("gradient_profiles=", "gradient_accuracy=", "fig3_settings=")),
    ("table4", 2, ("minigrid=",))])
def test_a_section_is_its_cells_the_parameters_and_the_setup(section, n_cells, saved_keys):
    from seqmi.book import find_root, section_notebook

    notebook = section_notebook(find_root(Path(__file__).parent), "06_attention_gradients", section)
    tags = [c.metadata.get("tags", []) for c in notebook.cells]
    setup = sum("setup" in t for t in tags)  # the visible set-up cell and the folded ones
    assert tags[0] == ["parameters", "hide-input"] and all("setup" in t for t in tags[1:setup + 1]) and setup >= 3
    assert tags[setup + 1:-1] == [[f"section-{section}"]] * n_cells and tags[-1] == []
    # what the section's rule reads is saved by the section itself
    saved = "".join(c.source for c in notebook.cells[setup + 1:-1])
    assert all(key in saved for key in saved_keys)


def _lstm_results(accuracy_at_10: float, steps_to_99, transfer: dict[int, float]) -> dict:
    return {"settings": {"transfer_batch": 500}, "copy_run": {"length": 10, "lr": 1e-2}, "profile": "reference",
            "transfer_training": {"lstm": {"updates": 5000, "accuracy": accuracy_at_10, "steps_to_99": steps_to_99}},
            "transfer": {"lstm": {str(t): a for t, a in transfer.items()}}}


def test_table5_lstm_row_needs_an_lstm_that_learned_copy():
    # the reference run's LSTM: 18.9% at T = 10, chance everywhere after: no evidence about length
    never = ch06._lstm_baseline(_lstm_results(0.1885, None, {100: 0.154, 500: 0.126, 2000: 0.126}))
    assert never.verdict == "inconclusive" and "never learned Copy" in never.scale
    # learned at T = 10, perfect to 300 and at chance from 500: Table 5's column
    table = {100: 1.0, 200: 1.0, 300: 0.999, 500: 0.12, 1000: 0.13, 2000: 0.125}
    assert ch06._lstm_baseline(_lstm_results(1.0, 900, table)).verdict == "reproduced"
    # still recalling at T = 1000: not the column's collapse
    assert ch06._lstm_baseline(_lstm_results(1.0, 900, {**table, 1000: 0.9})).verdict == "not reproduced"
