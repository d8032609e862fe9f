"""Chapter 03's results record: every recording read and written back exactly, bad JSON refused."""

import json
import math
from pathlib import Path

import pytest

from seqmi.results import results_type
from seqmi.results.ch03_rnn_transformer_mi import Model, Results

CHAPTER = "03_rnn_transformer_mi"
RECORDINGS = sorted((Path(__file__).resolve().parents[2] / "results").glob(f"*/{CHAPTER}/results.json"))


def _seed(xi: float, val_loss: float) -> dict:
    return {"n_fit_points": 3, "ci_method": "regression", "xi": xi, "xi_ci": [xi / 2, math.inf], "gamma": 1,
            "gamma_ci": [0.5, 1.5], "exp_rss": 0.1, "pow_rss": 0.2, "form_ci": [math.nan, math.nan],
            "mi": [0.1, 0.05, 0.02], "val_loss": val_loss, "val_history": [0.7, val_loss], "epochs": 2,
            "stopped": None, "converged": False, "sample_s": 0.5}


def _model(xis: list[float]) -> dict:
    """A model record of one seed per ξ, the first the best (one seed without ``head``, as older ones)."""
    seeds = [{**_seed(xi, 0.6 + 0.01 * i), "head": [1, 0]} for i, xi in enumerate(xis)]
    del seeds[-1]["head"]
    return {**seeds[0], "best_seed": 0, "seed_val_losses": [s["val_loss"] for s in seeds], "seeds": seeds,
            "params": 24, "state_floats": 2, "device": "cpu", "amp": False, "tokens_per_s": 1e6}


def _results() -> dict:
    """Small results of every section, without the keys older recordings lack."""
    fit = {k: v for k, v in _seed(10.0, 0.0).items() if k in {"n_fit_points", "ci_method", "xi", "xi_ci", "gamma",
                                                             "gamma_ci", "exp_rss", "pow_rss", "form_ci"}}
    sizes = {"seeds": 2, "seed": 0, "rnn_widths": [2], "rnn_depths": [1], "depth_widths": [2],
             "transformer_widths": [8], "text_lstm_widths": [64], "word_lstm_widths": [64],
             "word_transformer_widths": [64], "text_train_chars": 0, "text_epochs": 1, "word_epochs": 1,
             "text_generate": 1000, "text_sets": 2, "text_max_lag": 3, "mid_start": 2, "split_row": 100,
             "split_max_lag": 3}
    split = {"valid": 1e-3, "train": 2e-4, "null_mean": 1e-3, "null_sd": 1e-5, "z_valid": 0.0, "z_train": -80.0}
    shape = {"decay": 0.1, "decay_se": 0.01, "excess": 0.0, "excess_se": 0.01, "train_decay": 0.1,
             "train_decay_se": 0.01}
    return {"profile": "quick", "n_train": 10, "length": 16, "n_generate": 10, "threshold": 1e-3,
            "data_mi": [0.1, 0.05, 0.02], "data_fit": fit, "points": {"rnn_w2_d1": _model([10.0, 12.0])},
            "pending": ["binary lstm 2x1"], "settings": sizes, "convergence": {"window": 2, "tol": 0.01},
            "split_short_range_difference": {"contiguous_valid": [0.01, 0.002]},
            "split_long_range": {"contiguous": split}, "split_long_range_shape": {"contiguous_valid": shape},
            "split_far_start": 2, "split_mi": {"contiguous_train": [0.1, 0.05, 0.02]},
            "corpus_mi": [0.9, 0.5, 0.3], "corpus_small_mi": [0.9, 0.5, 0.3], "corpus_fit": fit,
            "corpus_small_fit": fit, "text_points": {"word_lstm_w64_d1": _model([5.0])},
            "word_vocab": {"size": 100, "min_count": 3, "chars_per_token": 4.4, "train_tokens": 1000,
                           "unk_rate": {"train": 0.04, "valid": 0.17}},
            "word_corpus_mi": [0.9, 0.5, 0.3], "word_corpus_small_mi": [0.9, 0.5, 0.3],
            "text_gaps": {"word_lstm 64×1": [[0.3, 0.4]]}, "intermediate_gaps": {"word_lstm 64×1": [[0.5, 0.6]]},
            "gap_null": math.nan, "depth_pairs": [], "train_split_chars": 5000, "samples_floor_dominated": True,
            "passages": {"word lstm 64": "and the"}, "spelling": {}, "device": "cpu", "wall_s": 1.5,
            "throughput": {"text word_lstm 64×1": {"params": 24, "tokens_per_s": 1e6, "tflops": 1e-4,
                                                   "device": "cpu", "amp": False}}}


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.parts[-3])
def test_every_recording_is_read_and_written_back_exactly(path):
    results = json.loads(path.read_text())["results"]
    record = Results.from_json(results)
    assert record.to_json() == results
    assert all(isinstance(p, Model) and p.seeds for p in [*record.points.values(), *record.text_points.values()])


def test_the_recordings_are_found():
    assert RECORDINGS


def test_a_synthetic_run_is_read_and_written_back_exactly():
    results = _results()
    record = results_type(CHAPTER).from_json(results)
    assert isinstance(record, Results) and record.to_json() == results
    assert record.point_keys is None and record.settings.binary_seeds is None
    assert record.points["rnn_w2_d1"].seeds[1].head is None and record.points["rnn_w2_d1"].seeds[0].head == [1, 0]
    keys = {"binary": ["a"], "char": [], "word": ["b"]}
    newer = {**results, "point_keys": keys, "settings": {**results["settings"], "binary_seeds": {"rnn": [0, 1]}}}
    assert Results.from_json(newer).to_json() == newer


def test_an_unknown_key_is_refused_by_name():
    results = _results()
    results["text_points"]["word_lstm_w64_d1"]["seeds"][0]["restarts"] = 3
    with pytest.raises(ValueError, match=r"text_points\.word_lstm_w64_d1\.seeds\[0\]: Seed has no field\(s\) "
                                         r"\['restarts'\]"):
        Results.from_json(results)


def test_a_value_of_another_kind_is_refused_by_name():
    results = _results()
    results["points"]["rnn_w2_d1"]["seeds"][1]["epochs"] = 2.5
    with pytest.raises(ValueError, match=r"points\.rnn_w2_d1\.seeds\[1\]\.epochs must be an integer, got float 2.5"):
        Results.from_json(results)
    results = _results()
    results["points"]["rnn_w2_d1"]["stopped"] = "budget"
    with pytest.raises(ValueError, match=r"points\.rnn_w2_d1\.stopped must be one of"):
        Results.from_json(results)
