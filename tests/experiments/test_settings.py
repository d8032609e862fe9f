"""Every settings record checks its values when it is built, naming the value and what is allowed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from seqmi.experiments import ch00_mutual_information as ch00
from seqmi.experiments import ch01_linear_rnn as ch01
from seqmi.experiments import ch02_binary_sequences as ch02
from seqmi.experiments import ch03_rnn_transformer_mi as ch03
from seqmi.experiments import ch04_bipartite_mi_l2m as ch04
from seqmi.experiments import ch05_ngram_ssm as ch05
from seqmi.experiments import ch06_attention_gradients as ch06
from seqmi.recipes.ppo import PPOConfig
from seqmi.sweep import seed_block

BINARY = ch03.BinarySettings(
    n_train=20, n_valid=10, length=16, mi_amplitude=0.1, mi_exponent=0.4, n_generate=10, threshold=1e-3,
    max_epochs=2, patience=1, transformer_epochs=2, rnn_lr=0.01, lstm_lr=0.01, transformer_lr=0.003,
    seed=0)
TEXT = ch03.TextSettings(train_chars=4000, generate=64, sample_sets=2, row=32, max_lag=8, patience=1,
                         seed=0)
CHAR = ch03.CharSettings(text=TEXT, window=16, epochs=1, lstm_batch=4, transformer_batch=8, transformer_lr=0.003)
WORD = ch03.WordSettings(text=TEXT, min_count=2, window=16, epochs=1, lstm_batch=4, lstm_lr=20.0, dropout=0.4,
                         transformer_batch=8, transformer_lr=0.003)
GRID = ch06.GridSettings(hidden=8, steps=3, batch=2, lr=0.01, seed=0)
TRANSFER = ch06.TransferSettings(hidden=8, copy_length=5, copy_steps=4, eval_every=2, batch=2, lr=0.01,
                                 transfer_lengths=(5, 10), transfer_batch=4, long_length=10, long_steps=0,
                                 long_lr=1e-3, seed=0)
DENOISE = ch06.DenoiseSettings(hidden=8, length=12, steps=4, eval_every=2, batch=2, lr=1e-3, seed=0)
PROFILE = ch06.ProfileSettings(hidden=8, length=10, steps=4, batch=2, lr=1e-3, seed=0)
MINIGRID = ch06.MiniGridSettings(train_env="MiniGrid-MemoryS7-v0", test_envs=("MiniGrid-MemoryS9-v0",), hidden=8,
                                 nu=2, rho=2, ppo=PPOConfig(updates=1, n_envs=2), eval_episodes=2, seed=0)
FAMILY = ch04.FamilySettings(toy_vocab=2, toy_length=8, max_layers=6, max_layers_overwrite=5, fit_from_layer=3,
                             profile_layers=4, split_ratios=[3, 4], split_max_layers=6, cca_max_layers=6,
                             rank_max_layers=4, state_eps=[0.1], state_dims=[4, 16])
MEASURE = ch04.TextMeasureSettings(two_point_chars=0, two_point_max_lag=100, two_point_min_lag=4, text_docs=16,
                                   char_lengths=[8, 16, 32], compress_lengths=[128, 256, 512],
                                   smol_lengths=[4, 8, 16], split_ratios=[3, 4], char_folds=0, fig5_windows=2,
                                   ngram_docs=0, smol_docs=0, sample_chars=2000, sample_temperatures=[1.0])
GAUSSIAN = ch04.GaussianSettings(token_dim=4, layers=1, heads=2, max_len=64, d_state=4, steps=10, batch=2, warmup=2,
                                 lr=3e-3, n_eval=4, seed=0)
BOUND = ch04.BoundSettings(copies=4, head_width=32, layers=1, heads=2, d_state=4, steps=60, batch=8, warmup=6,
                           lr=0.01, n_eval=16, seed=0)
CHARLM = ch04.CharLMSettings(depth=1, heads=2, d_state=4, window=32, steps=10, batch=2, lr=3e-3, seed=0)
SAMPLE = ch04.SampleSettings(chunk_chars=1000, batch=4, max_new_tokens=64, seed=0)
CHAIN = ch00.ChainSettings(n_seq=100, length=50, q=0.1, max_lag=10, n_batches=10, bipartite_length=8,
                           mi_floor=1e-3, fit_ceiling=0.05)
LINEAR = ch01.LinearRNNSettings(t_exact=10, n_systems=1, n_stable=1, n_mc=1000, t_mc=5, n_batches=10,
                                hidden_sizes=[1, 2], radii=[0.5], coupling=0.3, mi_lags=50, fit_tolerance=0.02,
                                n_spins=8, beta_J=-0.5, alpha=1.5)
DESIGN = ch02.DesignSettings(n_seq=200, length=50, max_lag=20, amplitude=0.1, gamma_min=0.1, gamma_max=1.0,
                             n_gamma=3, mi_floor=1e-3, gamma_check_max=0.6, n_batches=10,
                             bias_group=4, bias_gamma=0.5, bias_pairs=1000, bias_replicates=100, rep_n_seq=100,
                             rep_length=20, rep_max_lag=5, rep_n_p=3)
CONSTRUCTION = ch05.ConstructionSettings(eps_values=[0.1], embed_dims=[8, 1], cond_dims=[1, 2], cond_seeds=1,
                                         random_eps=0.01, scan_starts=[1, 2], scan_dims=[1, 2], n_points=6,
                                         n_random_ssms=10, fit_restarts=1, fit_steps=10, fit_lr=0.01)
TRAINING = ch05.TrainingSettings(n_train=40, n_seeds=2, epochs=3, paper_lr=1e-3, tuned_lr=0.1, embed_dim=16,
                                 small_dims=[1, 2], small_lrs=[0.1], small_select_seeds=2, hidden_size=145,
                                 prefix_length=6, window_tol=1e-3)
EXACT = ch06.ExactSettings(hidden_check=5, length_check=16, n_check=1, horizon=1000, fit_from=100,
                           horizon_autograd=60, horizon_sparse=500, pattern_kappas=[2, 3], n_patterns=2,
                           pattern_horizon=500, chi_k_max=1000)

BAD = [
    (BINARY, "n_train", 5), (BINARY, "length", 8), (BINARY, "mi_amplitude", 0.7), (BINARY, "mi_exponent", 0.0),
    (BINARY, "n_generate", 1), (BINARY, "threshold", -1e-3), (BINARY, "patience", 0),
    (BINARY, "lstm_lr", 2.0), (BINARY, "transformer_lr", 0.0), (BINARY, "seed", -1), (BINARY, "device", "gpu"),
    (BINARY, "max_epochs", 1.5),
    (TEXT, "row", 16), (TEXT, "max_lag", 32), (TEXT, "generate", 31), (TEXT, "sample_sets", 1),
    (TEXT, "train_chars", -1), (TEXT, "device", "tpu"),
    (CHAR, "text", BINARY), (CHAR, "window", 8), (CHAR, "lstm_batch", 0), (CHAR, "transformer_lr", 1.5),
    (WORD, "min_count", 0), (WORD, "dropout", 1.0), (WORD, "lstm_lr", 0.0), (WORD, "epochs", 0),
    (GRID, "hidden", 1), (GRID, "steps", 0), (GRID, "lr", 1.0), (GRID, "device", "gpu"),
    (TRANSFER, "eval_every", 5), (TRANSFER, "transfer_lengths", [5, 10]), (TRANSFER, "long_length", 20),
    (TRANSFER, "long_steps", -1), (TRANSFER, "long_lr", 0.0),
    (DENOISE, "length", 9), (DENOISE, "eval_every", 0), (DENOISE, "batch", 0),
    (PROFILE, "length", 9), (PROFILE, "held_out_batches", 0), (PROFILE, "n_held_out", 0),
    (MINIGRID, "test_envs", ["MiniGrid-MemoryS9-v0"]), (MINIGRID, "ppo", {"updates": 1}),
    (MINIGRID, "eval_episodes", 0), (MINIGRID, "nu", 0),
    (FAMILY, "toy_length", 13), (FAMILY, "toy_vocab", 1), (FAMILY, "fit_from_layer", 5),
    (FAMILY, "split_ratios", [4, 3]), (FAMILY, "split_ratios", [2]), (FAMILY, "split_max_layers", 4),
    (FAMILY, "rank_max_layers", 7), (FAMILY, "state_eps", [1.0]), (FAMILY, "state_dims", []),
    (MEASURE, "two_point_min_lag", 98), (MEASURE, "text_docs", 4), (MEASURE, "char_lengths", [8, 16]),
    (MEASURE, "char_lengths", [8, 15, 32]), (MEASURE, "smol_lengths", [4, 4, 8]), (MEASURE, "char_folds", 1),
    (MEASURE, "char_folds", 9), (MEASURE, "smol_docs", 1), (MEASURE, "sample_chars", 10),
    (MEASURE, "sample_temperatures", [0.0]),
    (GAUSSIAN, "warmup", 11), (GAUSSIAN, "max_len", 2), (GAUSSIAN, "token_dim", 0), (GAUSSIAN, "device", "gpu"),
    (BOUND, "copies", 0), (BOUND, "head_width", 0), (BOUND, "warmup", 61), (BOUND, "layers", 49),
    (CHARLM, "steps", 0), (CHARLM, "window", 2), (CHARLM, "lr", 0.0),
    (SAMPLE, "max_new_tokens", 8), (SAMPLE, "batch", 0),
    (CHAIN, "n_seq", 5), (CHAIN, "q", 0.5), (CHAIN, "max_lag", 50), (CHAIN, "bipartite_length", 21),
    (CHAIN, "fit_ceiling", 1e-4), (CHAIN, "n_batches", 1), (CHAIN, "seed", -2), (CHAIN, "device", "metal"),
    (LINEAR, "t_exact", 201), (LINEAR, "n_mc", 99), (LINEAR, "radii", [1.0]), (LINEAR, "coupling", -0.1),
    (LINEAR, "beta_J", 0.0), (LINEAR, "alpha", 0.0), (LINEAR, "n_spins", 3), (LINEAR, "hidden_sizes", [0]),
    (DESIGN, "amplitude", 0.7), (DESIGN, "gamma_max", 0.05), (DESIGN, "mi_floor", 0.2), (DESIGN, "bias_group", 21),
    (DESIGN, "bias_pairs", 100), (DESIGN, "rep_max_lag", 20), (DESIGN, "rep_n_p", 0), (DESIGN, "max_lag", 1),
    (CONSTRUCTION, "eps_values", [0.0]), (CONSTRUCTION, "scan_dims", [2, 8]), (CONSTRUCTION, "n_points", 2),
    (CONSTRUCTION, "fit_lr", 0.0), (CONSTRUCTION, "scan_starts", [65]),
    (TRAINING, "n_train", 7001), (TRAINING, "prefix_length", 2), (TRAINING, "small_select_seeds", 1),
    (TRAINING, "window_tol", 1.0), (TRAINING, "small_lrs", [0.0]), (TRAINING, "device", "gpu"),
    (EXACT, "fit_from", 600), (EXACT, "hidden_check", 33), (EXACT, "pattern_kappas", [1]),
    (EXACT, "chi_k_max", 10),
]


@pytest.mark.parametrize("valid, name, bad", BAD, ids=[f"{type(v).__name__}.{n}" for v, n, _ in BAD])
def test_a_settings_record_rejects_a_bad_value_by_name(valid, name, bad):
    with pytest.raises(ValueError, match=rf"^{name}(\[\d+\])? must"):
        replace(valid, **{name: bad})


def test_valid_settings_build_and_keep_their_values():
    assert replace(BINARY, device="cuda:1").device == "cuda:1"
    assert replace(TEXT, max_lag=31).max_lag == 31


@pytest.mark.parametrize("widths, depths, heads, match", [
    ({"transformer": [6]}, {}, {"transformer": 4}, "transformer widths must list multiples of heads=4"),
    ({"rnn": [0]}, {}, {}, r"rnn widths\[0\] must be in"),
    ({}, {"lstm": ([8], [0])}, {}, r"lstm depths\[0\] must be in"),
    ({}, {"transformer": ([12], [1])}, {"transformer": 8}, "transformer depth-sweep widths must list multiples of heads=8"),
])
def test_a_model_grid_rejects_bad_widths_and_depths(widths, depths, heads, match):
    with pytest.raises(ValueError, match=match):
        ch03.model_grid(widths, depths, heads=heads)


@pytest.mark.parametrize("train_env, test_envs", [("MiniGrid-Empty-5x5-v0", ()),
                                                  ("MiniGrid-MemoryS7-v0", ("MiniGrid-MemoryS8-v7",))])
def test_minigrid_settings_take_memory_tasks_that_exist(train_env, test_envs):
    with pytest.raises(ValueError, match="MiniGrid"):
        replace(MINIGRID, train_env=train_env, test_envs=test_envs)


def test_chapter_06_points_check_their_parameters():
    assert len(ch06.grid_points([10, 20], 2)) == 2 * 2 * len(ch06.TaskModel.KINDS) * 2
    assert ch06.minigrid_points(["lstm", "relevancy"], range(3, 5)) == [
        ("lstm", 3), ("relevancy", 3), ("lstm", 4), ("relevancy", 4)]
    assert seed_block("profile", 4, 5) == range(4, 9)
    with pytest.raises(ValueError, match=r"task_lengths\[0\] must be in"):
        ch06.grid_points([5], 1)
    with pytest.raises(ValueError, match="minigrid_kinds must be a list containing 'relevancy'"):
        ch06.minigrid_points(["lstm"], range(2))
    with pytest.raises(ValueError, match="minigrid_kinds entry must be one of"):
        ch06.minigrid_points(["relevancy", "gru"], range(2))
    with pytest.raises(ValueError, match="profile_replicates must be in"):
        seed_block("profile", 4, 0)


def test_chapter_04_points_check_their_parameters():
    assert len(ch04.l2m_points([16, 64], [8, 24], 2, 2)) == 2 * 2 * 2 * 2
    with pytest.raises(ValueError, match="l2m_lengths must list powers of 4"):
        ch04.l2m_points([16, 32], [8], 2, 1)
    with pytest.raises(ValueError, match="model_widths must list multiples of heads=2"):
        ch04.l2m_points([16, 64], [8, 9], 2, 1)
    points = ch04.exact_bound_points([2, 8], 8, 16, [16, 64], range(2), mamba_max_length=16)
    assert ("mamba", 8, 16, 1) in points and ("mamba", 8, 64, 0) not in points and len(points) == 14
    with pytest.raises(ValueError, match=r"bound_lengths\[0\] must be in"):
        ch04.exact_bound_points([2], 8, 16, [8, 64], range(1), 4096)


def test_an_unequal_split_must_leave_a_first_part_at_every_length():
    with pytest.raises(ValueError):
        replace(MEASURE, smol_lengths=[2, 4, 8], split_ratios=[5])
