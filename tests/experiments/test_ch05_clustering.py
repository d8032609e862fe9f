"""Fig. 4's clustering test (chapter 05): the shuffled-label null, the per-seed statistic and its rule."""

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from seqmi import claims
from seqmi.claims import ch05_ngram_ssm as ch05
from seqmi.data.ngram import random_ngram_language
from seqmi.experiments.ch05_ngram_ssm import SplitRun, state_clustering
from seqmi.models.ngram_lm import SSMLanguageModel, explained_by_groups, shuffled_label_null
from seqmi.results.ch05_ngram_ssm import Results

RECORDED = Path(__file__).resolve().parents[2] / "results" / "full" / "05_ngram_ssm" / "results.json"


def test_the_shuffled_null_has_mean_k_minus_one_over_n_minus_one_whatever_the_states():
    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(20), 15)  # K = 20 groups of N = 300 states
    clustered = rng.standard_normal((20, 6))[labels] * 5 + rng.standard_normal((300, 6))
    for states in (rng.standard_normal((300, 6)), clustered):
        null = shuffled_label_null(states, labels, 2000, seed=1)
        # sd of one shuffle is about 0.03 here: the mean of 2000 lies within 0.002
        assert null.mean() == pytest.approx(19 / 299, abs=0.003)
    assert explained_by_groups(clustered, labels) > 0.9 > null.max()


def test_every_shuffle_is_a_relabelling_with_the_group_sizes_kept():
    states = np.array([[0.0, 1.0], [2.0, 0.5], [3.0, -1.0], [7.0, 2.0], [1.0, 1.0]])
    labels = ["a", "a", "b", "b", "b"]
    possible = {round(explained_by_groups(states, list(p)), 12) for p in itertools.permutations(labels)}
    null = shuffled_label_null(states, labels, 200, seed=3)
    assert {round(float(v), 12) for v in null} <= possible
    # the same seed draws the same shuffles
    np.testing.assert_array_equal(null, shuffled_label_null(states, labels, 200, seed=3))


def test_the_shuffled_null_of_constant_states_is_one_as_explained_by_groups_says():
    states, labels = np.ones((4, 3)), [0, 0, 1, 1]
    assert explained_by_groups(states, labels) == 1.0
    np.testing.assert_array_equal(shuffled_label_null(states, labels, 5), np.ones(5))


@pytest.mark.parametrize("states, labels, permutations, message", [
    (np.zeros(5), [0] * 5, 10, "2-d array"),
    (np.zeros((1, 3)), [0], 10, "at least two rows"),
    (np.zeros((4, 3)), [0, 1, 1], 10, "one entry per state"),
    (np.zeros((4, 3)), [0, 0, 1, 1], 0, "permutations"),
])
def test_the_shuffled_null_names_bad_input(states, labels, permutations, message):
    with pytest.raises(ValueError, match=message):
        shuffled_label_null(states, labels, permutations)


def test_state_clustering_reads_one_entry_per_run():
    lang = random_ngram_language(3, 8, 4, 2, 3, seed=1)  # 126 prefixes ending in 60 bigrams
    runs = []
    for s in range(2):
        torch.manual_seed(s)
        runs.append(SplitRun(SSMLanguageModel(len(lang.vocab), 4, 6).eval(), [1.0], 0.0, []))
    prefixes = lang.starting_sequences()
    out = state_clustering(runs, lang, prefixes, permutations=200, seed=0)
    assert sorted(out) == ["explained", "null_mean", "p_value"]
    assert all(len(v) == 2 for v in out.values())
    assert all(1 / 201 <= p <= 1 for p in out["p_value"])
    k = len({p[-2:] for p in prefixes})
    assert out["null_mean"] == pytest.approx([(k - 1) / (len(prefixes) - 1)] * 2, abs=0.01)
    # a random SSM's state weights its last words most: the last n - 1 beat every shuffle
    assert min(out["explained"]) > max(out["null_mean"]) and max(out["p_value"]) == 1 / 201


@pytest.mark.parametrize("explained, verdict", [
    ([0.91, 0.92, 0.90, 0.93], "reproduced"),  # every seed clusters far beyond the margin
    ([0.20, 0.25, 0.22, 0.18], "not reproduced"),  # every seed well below it
    ([0.30, 0.70, 0.50, 0.55], "inconclusive"),  # seeds on both sides
    ([0.91, 0.92], "inconclusive"),  # fewer than MIN_SEEDS
])
def test_ch05_clustering_is_decided_over_seeds_against_the_margin(explained, verdict):
    null = np.full(len(explained), 0.0086)
    got, ci = ch05.decide_clustering(np.array(explained), null)
    assert got == verdict and (ci is None) == (len(explained) < claims.MIN_SEEDS)


def test_ch05_clustering_needs_one_null_per_seed():
    with pytest.raises(ValueError, match="one value per seed"):
        ch05.decide_clustering(np.array([0.9, 0.9, 0.9]), np.array([0.01, 0.01]))


def _results(explained=None):
    """The recorded full run's record with the clustering of ``explained`` (none: a recording made before it)."""
    n = 12 if explained is None else len(explained)
    recorded = json.loads(RECORDED.read_text())["results"]
    r = {k: v for k, v in recorded.items() if k != "trigram_clustering"}
    r.update({"profile": "full", "n_contexts": 145, "n_starting_sequences": 16774,
              "training": {**recorded["training"], "n_seeds": n, "tuned_lr": 0.1},
              "explained_by_last_trigram": {"constructed_ssm": 1.0, "trained_ssm": 0.911, "trained_rnn": 0.984}})
    if explained is not None:
        seeds = {"explained": explained, "null_mean": [0.0086] * n, "p_value": [1 / 101] * n}
        r["trigram_clustering"] = {"permutations": 100, "ssm_tuned": seeds, "rnn_tuned": seeds, "ssm_paper": seeds}
    return Results.from_json(r)


def test_ch05_cluster_claim_from_per_seed_statistics():
    claim = ch05._cluster_claim(_results([0.91, 0.92, 0.90, 0.93, 0.91]))
    assert claim.kind == "statistical" and claim.verdict == "reproduced"
    assert claim.value == pytest.approx(np.mean([0.91, 0.92, 0.90, 0.93, 0.91]) - 0.0086)
    assert claim.ci[0] > ch05.CLUSTER_MARGIN and "measured spread" in claim.design.power
    # effects around the margin leave it open, and the row says how many seeds would decide it
    open_claim = ch05._cluster_claim(_results([0.45, 0.62, 0.51, 0.58]))
    assert open_claim.verdict == "inconclusive" and claims.DECIDES in open_claim.scale
    assert "seeds at the measured mean and spread" in open_claim.scale


def test_ch05_cluster_claim_of_a_recording_without_per_seed_statistics_waits_for_the_next_run():
    claim = ch05._cluster_claim(_results())
    assert claim.verdict == "inconclusive" and claim.value is None and claim.ci is None
    assert claims.DECIDES in claim.scale and "next full run" in claim.scale
    assert "seed 0 only: trained SSM 0.911" in claim.detail and "pilot's spread" in claim.design.power
