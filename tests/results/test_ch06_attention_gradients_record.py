"""Chapter 06's results record: every recording and a synthetic run read and written back exactly."""

from __future__ import annotations


import numpy as np
import pytest

from seqmi import claims
from seqmi.experiments import ch06_records as rec
from seqmi.results.ch06_attention_gradients import DenoiseLong, FreshBatch, Results

CHAPTER = "06_attention_gradients"
SETTINGS = [f"nu=15,rho={x}" for x in rec.SWEPT] + [f"nu={x},rho=15" for x in rec.SWEPT]


def _agent(envs: list[str], reward: float) -> dict:
    """One agent's record: two rollouts and a test on each environment (a JSON integer where a float is written)."""
    test = {"episodes": 10, "successes": 9, "success": 0.9, "mean_return": reward, "mean_length": 12.5}
    return {"success_curve": [0.5, 1], "return_curve": [0.4, reward], "env_steps": [640, 1280], "busy_s": 60.0,
            "evaluation": {env: test for env in envs}, "device": "cpu"}


def _recall_run(steps_to_99: int | None) -> dict:
    """What a Copy or Denoise run stopped at 99% records (without its last fields)."""
    return {"updates": 900, "steps_to_99": steps_to_99, "accuracy": 0.995, "fresh": {"accuracy": 1, "sequences": 500},
            "seconds_per_update": 0.02, "eval_steps": [450, 900], "eval_accuracy": [0.5, 0.995]}


def _theory() -> dict:
    """The numbers of the supplement's derivations, as a whole run writes them."""
    spectrum = {"fitted": 0.7, "exact": 0.7, "supplement": 0.7}
    return {
        "decomposition_max_rel_error": {"none": 1e-15, "sparse(3, d=2)": 2e-15}, "xi_enumeration_max_error": 0,
        "w_identities_ok": True, "w4_printed_rel_error": 0.03, "lemma10_ok": True, "lemma11_ok": True,
        "harmonic_2n_eps": [0.98, 0.9998], "lemma12_ks": [20, 40, 80],
        "lemma12_scaled_remainder": {"2": [0.9, 0.95, 0.97], "3": [1.0, 1.5, 2.0]},
        "lemma12_growth_per_log": {"2": 0.03, "3": 0.7}, "no_attention_rate": 0.10536,
        "no_attention_rate_predicted": 0.10536, "uniform_lambdas": [-0.5, 0.5], "uniform_fitted": [1.33, 0.0],
        "uniform_exact": [1.33, 0.0], "uniform_supplement": [1, 0.5], "uniform_matrix": {"diag(0.3, -0.5)": spectrum},
        "uniform_fit_vs_exact_max": 0.01, "uniform_autograd_check": 1e-14, "theorem1_fails": ["λ=-0.5"],
        "growing_lambdas": [], "sparse_rows": [{"kappa": 2, "depth": 1, "level": 0.5, "min_far": 0.5, "bound": 0.5,
                                                "flatness": 1e-12}],
        "sparse_autograd_check": 1e-14, "pattern_lams": [0.4, 0.3, -0.4],
        "pattern_rows": [{"kind": kind, "kappa": 2, "patterns": 3, "min_margin_log": 0.1, "median_depth_far": 9,
                          "loglog_slope": -0.5, "rate_per_step": -0.01, "log_norm_far": -8.0}
                         for kind in ("random", "window")],
        "pattern_horizon": 200, "horizon": 500, "fit_from": 50, "horizon_sparse": 200,
        "cost": {f"{kind}/{T}": {"seconds": 0.01 * T, "saved_bytes": 1000 * T} for kind in ("relrnn", "full")
                 for T in (50, 100)},
        "cost_exponents": {"relrnn": {"time": 1.0, "memory": 1.0}, "full": {"time": 2, "memory": 2.0}},
    }


def _synthetic() -> dict:
    """A small whole run of every section, as the chapter saves it."""
    profiles = {k: [[10.0 ** -i for i in range(6)]] * 3 for k in SETTINGS}
    memory = ["MiniGrid-MemoryS7-v0", "MiniGrid-MemoryS13-v0"]
    door_key = list(rec.RL_PAIRS["DoorKey"])
    return {
        "profile": "quick", **_theory(),
        "copy_run": {**_recall_run(900), "length": 10, "lr": 0.01, "batch": 10, "max_steps": 5000,
                     "plateau": 0.69, "final_loss": 0.01},
        "transfer": {"relrnn": {"100": 0.999, "1000": 1}, "lstm": {"100": 0.12, "1000": 0.13}},
        "transfer_training": {"relrnn": {"updates": 900, "accuracy": 0.995, "steps_to_99": 900},
                              "lstm": {"updates": 5000, "accuracy": 0.19, "steps_to_99": None}},
        "symbol_attention_mass": {"relrnn": {"100": 0.9, "1000": 0.9}},
        "long_run": {"length": 1000, "steps": 0, "lr": 0.001, "zero_shot": 1, "accuracy": 1,
                     "seconds_per_update": None, "eval_accuracy": []},
        "task_accuracy": {"denoise/100/relrnn": 0.3}, "task_curves": {"denoise/100/relrnn": [2.0, 1.5]},
        "task_lengths": [100], "train_steps": 2, "task_accuracy_replicates": {"denoise/100/relrnn": [0.3]},
        "denoise_long": {**_recall_run(None), "eval_loss": [0.9, 0.8], "device": "cpu", "length": 100,
                         "hidden": 128, "lr": 0.001, "max_steps": 900},
        "denoise_fig4": {"length": 200, "hidden": 128, "lr": 0.001, "max_steps": 900, "first_seed": 0,
                         "replicates": 1, "runs": {"0": {**_recall_run(None), "eval_loss": [0.9, 0.8],
                                                         "device": "cpu"}}},
        "rellstm_copy": {"copy_length": 10, "lr": 0.01, "batch": 10, "hidden": 64, "max_steps": 5000,
                         "test_length": 1000, "test_batch": 500, "first_seed": 0, "replicates": 1,
                         "runs": {"0": {**_recall_run(900), "device": "cpu",
                                        "test": {"length": 1000, "sequences": 500, "accuracy": 1, "seconds": 40.0}}}},
        "gradient_profiles": profiles, "gradient_accuracy": {k: [0.99] * 3 for k in SETTINGS},
        "fig3_settings": {"steps": 6, "length": 4, "first_seed": 0, "held_out_batches": 2, "held_out_sequences": 32},
        "minigrid": {"train_env": memory[0], "test_envs": memory[1:], "kinds": ["full", "relevancy"],
                     "replicates": 2, "first_seed": 0, "updates": 2, "n_envs": 64, "eval_episodes": 10, "lr": 0.001,
                     "runs": {f"{k}/{i}": _agent(memory, 0.5 + 0.1 * i) for k in ("full", "relevancy")
                              for i in range(2)}},
        "rl_transfer": {"pairs": ["DoorKey"], "kinds": ["full", "relevancy"], "replicates": 2, "first_seed": 0,
                        "updates": 2, "n_envs": 64, "eval_episodes": 10, "lr": 0.001,
                        "runs": {f"DoorKey/{k}/{i}": _agent(door_key, 0.8 + 0.1 * i)
                                 for k in ("full", "relevancy") for i in range(2)}},
        "settings": {"eval_batch": 200, "task_replicates": 1, "transfer_batch": 500},
    }


def test_a_synthetic_run_is_read_and_written_back_exactly_and_decided():
    data = _synthetic()
    r = Results.from_json(data)
    assert r.to_json() == data
    # nested records, and the nulls of a run that never reached 99% kept as nulls
    assert r.copy_run.fresh == FreshBatch(accuracy=1, sequences=500) and r.copy_run.steps_to_99 == 900
    assert isinstance(r.denoise_long, DenoiseLong) and r.denoise_long.steps_to_99 is None
    assert r.transfer_training["lstm"].steps_to_99 is None and r.long_run.seconds_per_update is None
    assert r.minigrid.runs["relevancy/1"].evaluation["MiniGrid-MemoryS13-v0"].mean_return == 0.6
    # every claim but the curriculum at T = 1000, which a run without updates there does not make
    assert len(claims.for_chapter(CHAPTER, r)) == 26


def test_a_recording_of_one_section_holds_its_numbers_alone():
    data = {"profile": "full", "denoise_fig4": _synthetic()["denoise_fig4"]}
    r = Results.from_json(data)
    assert r.to_json() == data and r.settings is None and r.copy_run is None
    assert [c.id for c in claims.for_chapter(CHAPTER, r)] == ["kerg2020.fig4.denoise-long"]


def test_a_run_recorded_before_the_fresh_batch_and_the_seed_offset_lacks_them():
    data = _synthetic()
    del data["copy_run"]["fresh"], data["denoise_long"]["fresh"], data["minigrid"]["first_seed"]
    for run in data["minigrid"]["runs"].values():
        del run["device"]
    r = Results.from_json(data)
    assert r.to_json() == data
    assert r.copy_run.fresh is None and r.denoise_long.fresh is None and r.minigrid.first_seed is None


def test_the_sweep_readings_take_the_record_or_its_json_alike():
    data = _synthetic()
    r = Results.from_json(data)
    env = "MiniGrid-MemoryS7-v0"
    np.testing.assert_array_equal(rec.minigrid_rewards(r.minigrid, "relevancy", env),
                                  rec.minigrid_rewards(data["minigrid"], "relevancy", env))
    assert rec.minigrid_seeds(data["minigrid"]) == rec.minigrid_seeds(r.minigrid) == range(2)
    np.testing.assert_array_equal(rec.rl_rewards(r.rl_transfer, "DoorKey", "full", rec.RL_PAIRS["DoorKey"][1],
                                                 "success"), [0.9, 0.9])
    with pytest.raises(ValueError, match="field must be 'mean_return' or 'success', got 'mean_length'"):
        rec.minigrid_rewards(r.minigrid, "full", env, "mean_length")


@pytest.mark.parametrize("change, message", [
    ({"gradient_profile": {}}, r"Results has no field\(s\) \['gradient_profile'\]"),
    ({"fig3_settings": {"steps": 6, "length": 4, "first_seed": 0, "held_out_batches": 2, "held_out_sequences": 32,
                        "seeds": 3}},
     r"Results\.fig3_settings: Fig3Settings has no field\(s\) \['seeds'\]"),
    ({"copy_run": {**_synthetic()["copy_run"], "steps_to_99": 900.5}},
     r"Results\.copy_run\.steps_to_99 must be an integer, got float 900\.5"),
    ({"pattern_rows": [{**_synthetic()["pattern_rows"][0], "kind": "diagonal"}]},
     r"Results\.pattern_rows\[0\]\.kind must be one of \['random', 'window'\], got 'diagonal'"),
    ({"rellstm_copy": {**_synthetic()["rellstm_copy"], "runs": {"0": {**_recall_run(900), "device": "cpu"}}}},
     r"Results\.rellstm_copy\.runs\.0: RelLSTMRun needs \['test'\]"),
])
def test_a_bad_key_or_value_is_refused_naming_it(change, message):
    with pytest.raises(ValueError, match=message):
        Results.from_json({**_synthetic(), **change})
