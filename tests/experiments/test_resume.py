"""Interrupted and resumed training: every long point of chapters 03, 04 and 06 resumes from its
checkpoint, inside an epoch where the batches allow it, and ends as a run that went through;
sweep budgets hold, closing measurement included; cache keys name no device."""

import time
from dataclasses import replace
from functools import partial

import numpy as np
import pytest
import torch

import seqmi.device
import seqmi.experiments.ch03_rnn_transformer_mi as ch03
import seqmi.experiments.ch04_bipartite_mi_l2m as ch04
import seqmi.experiments.ch06_attention_gradients as ch06
import seqmi.recipes.copy_tasks
import seqmi.train
from seqmi.experiments.ch03_rnn_transformer_mi import _binary as ch03_binary
from seqmi.experiments.ch06_attention_gradients import _copy_tasks as ch06_copy_tasks
from seqmi.experiments.ch06_attention_gradients import _minigrid as ch06_minigrid
from seqmi.experiments.ch06_attention_gradients import _transfer as ch06_transfer
from seqmi.models.lm import RNNLM
from seqmi.recipes.ppo import PPOConfig
from seqmi.sweep import Budget, OutOfTime, run_sweep, sweep_key
from seqmi.train import Sequences, Stream, TrainConfig, train

TIMINGS = {"seconds_per_update", "seconds_per_step", "busy_s", "tokens_per_s", "sample_s", "train_s",
           "train_busy_s"}


class StopAfter(Budget):
    """A budget that runs out at its ``k + 1``-th look: a training run stops after ``k + 1``
    steps (or, where only epoch ends are checkpointed, ``k + 1`` epochs)."""

    def __init__(self, k):
        super().__init__(0)
        self.left = k

    def training_spent(self):
        self.left -= 1
        return self.left < 0


def untimed(record):
    """``record`` without its timings, at any depth (they differ from run to run)."""
    if isinstance(record, dict):
        return {k: untimed(v) for k, v in record.items() if k not in TIMINGS}
    if isinstance(record, list):
        return [untimed(v) for v in record]
    return record


def interrupted(compute, monkeypatch, module, k):
    """``compute()`` rerun until it finishes, each run's budget spent after ``k`` steps: (record, stops)."""
    stops = 0
    while True:
        monkeypatch.setattr(module, "current_budget", lambda: StopAfter(k))
        try:
            return compute(), stops
        except OutOfTime:
            stops += 1


def markov_rows(n, length, seed):
    rng = np.random.default_rng(seed)
    flips = rng.random((n, length)) < 0.1
    return (np.cumsum(flips, axis=1) + rng.integers(2, size=(n, 1))) % 2


def lstm():
    return RNNLM(2, width=6, depth=1, cell="lstm", embed_dim=2)


@pytest.mark.parametrize("data", [
    Sequences(markov_rows(64, 24, 0), markov_rows(32, 24, 1)),  # 4 steps per epoch, two restarts as one family
    # a stream is checkpointed at epoch ends only (its carried state is not saved)
    Stream(markov_rows(1, 2000, 2)[0], markov_rows(1, 400, 3)[0], bptt=20, reset_prob=0.3),
], ids=["sequences", "stream"])
def test_a_family_stopped_by_its_budget_resumes_bit_for_bit(tmp_path, data):
    config = TrainConfig(lr=0.01, batch_size=16, max_epochs=3, patience=5, restarts=2, seed=3)
    whole = train(lstm, data, config, progress=False)
    stops = 0
    while True:
        try:
            resumed = train(lstm, data, config, checkpoint_dir=tmp_path, progress=False, budget=StopAfter(3))
            break
        except OutOfTime:
            stops += 1
            state = torch.load(tmp_path / seqmi.train.CHECKPOINT_FILE, weights_only=False)
            inside = any(m["epoch_start"] is not None for m in state["members"])
            assert inside == isinstance(data, Sequences)
    assert stops >= 1
    for x, y in zip(whole.model.state_dict().values(), resumed.model.state_dict().values()):
        assert torch.equal(x, y)
    assert resumed.restart_val_losses == whole.restart_val_losses
    assert resumed.step_losses.tolist() == whole.step_losses.tolist()
    assert [{k: v for k, v in h.items() if k != "epoch_s"} for h in resumed.history] == \
        [{k: v for k, v in h.items() if k != "epoch_s"} for h in whole.history]


def test_ch03_binary_family_resumes_inside_an_epoch(tmp_path, monkeypatch):
    settings = ch03.BinarySettings(n_train=200, n_valid=10, length=16, mi_amplitude=0.1, mi_exponent=0.4,
                                   n_generate=10, threshold=1e-3, max_epochs=2, patience=1,
                                   transformer_epochs=2, rnn_lr=0.01, lstm_lr=0.01, transformer_lr=0.003, seed=0)
    point = ("transformer", (4,), 1, 0)
    whole, = ch03.binary_points([point], None, settings)
    (resumed,), stops = interrupted(lambda: ch03.binary_points([point], str(tmp_path), settings), monkeypatch,
                                    ch03_binary, 3)
    assert stops >= 1
    assert untimed(resumed) == untimed(whole)


def test_ch04_gaussian_point_resumes(tmp_path, monkeypatch):
    settings = ch04.GaussianSettings(token_dim=1, layers=1, heads=1, max_len=16, d_state=2, steps=7, batch=2,
                                     warmup=1, lr=1e-3, n_eval=2, seed=0)
    point = ("transformer", 8, 16, 0)
    whole = ch04.gaussian_points([point], None, settings)[0]
    resumed, stops = interrupted(lambda: ch04.gaussian_points([point], str(tmp_path), settings)[0], monkeypatch, ch04, 2)
    assert stops == 2  # after steps 3 and 6 of 7
    assert resumed == whole


@pytest.mark.parametrize("backbone", ["transformer", "mamba"])
def test_ch04_replicates_trained_together_resume(tmp_path, monkeypatch, backbone):
    settings = ch04.GaussianSettings(token_dim=2, layers=1, heads=1, max_len=16, d_state=2, steps=7, batch=2,
                                     warmup=1, lr=1e-3, n_eval=2, seed=0)
    points = [(backbone, 8, 16, r) for r in range(3)]
    alone = [ch04.gaussian_points([point], None, settings)[0] for point in points]
    resumed, stops = interrupted(lambda: ch04.gaussian_points(points, str(tmp_path), settings), monkeypatch, ch04, 2)
    assert stops == 2  # after steps 3 and 6 of 7, the three replicates checkpointed together
    assert resumed == alone


def test_fresh_batches_resume_without_drawing_again_what_was_trained_on(tmp_path, monkeypatch):
    """A sampler's run resumed twice draws each of its 7 batches once, and ends as the run that went through."""
    import seqmi.recipes.gaussian_tokens as gaussian_tokens

    draws = []
    real = gaussian_tokens._conditional_targets
    monkeypatch.setattr(gaussian_tokens, "_conditional_targets", lambda *a: draws.append(1) or real(*a))
    settings = ch04.GaussianSettings(token_dim=1, layers=1, heads=1, max_len=16, d_state=2, steps=7, batch=2,
                                     warmup=1, lr=1e-3, n_eval=2, seed=0)
    point = ("mamba", 8, 16, 0)
    whole = ch04.gaussian_points([point], None, settings)[0]
    drawn_whole = len(draws)  # the 7 training batches and the evaluation's
    draws.clear()
    resumed, stops = interrupted(lambda: ch04.gaussian_points([point], str(tmp_path), settings)[0], monkeypatch, ch04, 2)
    assert stops == 2 and resumed == whole
    # 3 + 3 + 1 training batches, each drawn once: a replay would draw 3 + 6 + 7
    assert len(draws) == drawn_whole


def test_device_sampler_run_resumes_bit_for_bit(tmp_path):
    """``train_gaussian`` with the device sampler (a seed per batch from the checkpointed numpy
    generator), stopped twice by its budget, ends as the run that went through."""
    from seqmi.data.subvolume import SubvolumeGaussian
    from seqmi.models.gaussian_lm import GaussianSequenceModel
    from seqmi.recipes.gaussian_tokens import train_gaussian

    dist = SubvolumeGaussian(3, copies=4)

    def model():
        torch.manual_seed(0)
        return GaussianSequenceModel("transformer", 4, 8, 1, n_heads=2, max_len=64)

    run = partial(train_gaussian, dist=dist, steps=7, batch=3, lr=3e-3, warmup=2, seed=5, progress=False,
                  sampler="device-cholesky")
    whole_model = model()
    whole = run(whole_model)
    stops = 0
    while True:
        resumed_model = model()  # as a new process would build it: the checkpoint holds the weights
        try:
            resumed = run(resumed_model, checkpoint_dir=tmp_path, budget=StopAfter(2))
            break
        except OutOfTime:
            stops += 1
    assert stops == 2  # after steps 3 and 6 of 7
    assert resumed.tolist() == whole.tolist()
    for x, y in zip(whole_model.state_dict().values(), resumed_model.state_dict().values()):
        assert torch.equal(x, y)
    # and the numpy sampler draws other batches of the same distribution
    assert run(model(), sampler="numpy").tolist() != whole.tolist()


def test_ch04_gaussian_point_resumes_with_the_numpy_sampler(tmp_path, monkeypatch):
    settings = ch04.GaussianSettings(token_dim=2, layers=1, heads=1, max_len=16, d_state=2, steps=7, batch=2,
                                     warmup=1, lr=1e-3, n_eval=2, seed=0, sampler="numpy")
    point = ("transformer", 8, 16, 0)
    whole = ch04.gaussian_points([point], None, settings)[0]
    resumed, stops = interrupted(lambda: ch04.gaussian_points([point], str(tmp_path), settings)[0], monkeypatch, ch04, 2)
    assert stops == 2
    assert resumed == whole


def test_fresh_batches_must_be_replayable():
    with pytest.raises(ValueError, match="fresh=True needs replayable=True"):
        seqmi.train.Batches(3, lambda rng, step: iter(()), replayable=False, fresh=True)


def test_ch04_character_model_resumes_inside_its_one_epoch(tmp_path, monkeypatch):
    settings = ch04.CharLMSettings(depth=1, heads=1, d_state=2, window=8, steps=6, batch=2, lr=1e-3, seed=0)
    ids = np.random.default_rng(0).integers(5, size=400)
    data = Sequences(ch04.char_windows(ids, settings), ids[:64].reshape(-1, 8))
    whole = ch04.train_char_lm("transformer", 5, 8, data, settings)
    stops = 0
    while True:
        try:
            resumed = ch04.train_char_lm("transformer", 5, 8, data, settings, cache_dir=str(tmp_path),
                                         budget=StopAfter(2))
            break
        except OutOfTime as stop:
            assert "stopped at the section's deadline, checkpointed under" in str(stop)
            stops += 1
    assert stops == 2  # after steps 3 and 6 of the epoch's 6, before its end
    for x, y in zip(whole.model.state_dict().values(), resumed.model.state_dict().values()):
        assert torch.equal(x, y)
    assert resumed.step_losses.tolist() == whole.step_losses.tolist()
    assert resumed.best_val_loss == whole.best_val_loss


def test_ch06_denoise_and_profile_points_resume(tmp_path, monkeypatch):
    denoise = ch06.DenoiseSettings(hidden=8, length=10, steps=7, eval_every=2, batch=4, lr=1e-2, seed=0)
    profile = ch06.ProfileSettings(hidden=8, length=10, steps=7, batch=4, lr=1e-2, seed=0, n_held_out=4)
    whole, whole_profile = ch06.denoise_point(0, None, denoise), ch06.profile_point((3, 3, 0), None, profile)
    resumed, stops = interrupted(lambda: ch06.denoise_point(0, str(tmp_path / "d"), denoise), monkeypatch,
                                 ch06_copy_tasks, 2)
    assert stops == 2  # after steps 3 and 6 of 7
    assert untimed(resumed) == untimed(whole)
    whole = whole_profile
    resumed, stops = interrupted(lambda: ch06.profile_point((3, 3, 0), str(tmp_path / "p"), profile),
                                 monkeypatch, ch06_copy_tasks, 2)
    assert stops == 2
    assert resumed == whole


def test_ch06_minigrid_agent_resumes_between_rollouts(tmp_path, monkeypatch):
    settings = ch06.MiniGridSettings(train_env="MiniGrid-MemoryS7-v0", test_envs=(), hidden=8, nu=2, rho=2,
                                     ppo=PPOConfig(updates=3, n_envs=2, ppo_epochs=2, minibatches=2),
                                     eval_episodes=2, seed=0)
    whole = ch06.minigrid_point(("relevancy", 0), None, settings)
    resumed, stops = interrupted(lambda: ch06.minigrid_point(("relevancy", 0), str(tmp_path), settings),
                                 monkeypatch, ch06_minigrid, 0)
    assert stops == 2  # after rollouts 1 and 2 of 3
    assert untimed(resumed) == untimed(whole)


class TickingClock:
    """A wall clock for :class:`~seqmi.sweep.Budget` that advances one second at every read.

    A budget then counts the clock reads a sweep makes (training steps, points, closing
    measurement), which are the same on every machine and under any load: the logic of a
    budget is tested here, its wall time in ``benchmarks/``.
    """

    perf_counter = staticmethod(time.perf_counter)  # durations the records report stay real

    def __init__(self):
        self.now = 1.0e9

    def time(self):
        self.now += 1.0
        return self.now


def test_a_sweep_ends_cached_within_a_quarter_over_its_budget(tmp_path, monkeypatch):
    # the "given 240 s, ends before 300 s", in clock reads: the budget is 2.5 times
    # what the costliest point reads alone, and there are 40 points, so that the budget
    # stops the sweep after a first point has finished, inside the training of another
    import seqmi.sweep

    clock = TickingClock()
    monkeypatch.setattr(seqmi.sweep, "time", clock)
    settings = ch03.BinarySettings(n_train=200, n_valid=10, length=32, mi_amplitude=0.1, mi_exponent=0.4,
                                   n_generate=10, threshold=1e-3, max_epochs=20, patience=20,
                                   transformer_epochs=2, rnn_lr=0.01, lstm_lr=0.01, transformer_lr=0.003, seed=0)
    points = [(kind, (w,), 1, 0) for kind in ("rnn", "lstm") for w in range(2, 22)]
    # one point per call, each in its own checkpoint folder
    compute = partial(ch03.binary_points, settings=settings)
    grouped = {"group": ch03.family_of, "group_size": 1}
    start = clock.now
    run_sweep(points[-1:], compute, cache_dir=tmp_path / "alone", spec=settings, budget_s=1e9, name="binary",
              progress=False, **grouped)
    budget = 2.5 * (clock.now - start)
    start = clock.now
    first = run_sweep(points, compute, cache_dir=tmp_path, spec=settings, budget_s=budget, name="binary",
                      progress=False, **grouped)
    assert clock.now - start < 1.25 * budget
    assert first.done and first.pending
    assert all((tmp_path / f"{sweep_key('binary', p, settings)}.json").is_file() for p in first.done)
    # the point whose training the budget stopped has its checkpoint
    assert any((tmp_path / sweep_key("binary", p, settings) / "checkpoint.pt").is_file() for p in first.pending)


@pytest.mark.parametrize("bad", [-1.0, float("nan")])
def test_a_budget_rejects_a_bad_reserve(bad):
    with pytest.raises(ValueError, match="reserve_s"):
        Budget(10, reserve_s=bad)
    with pytest.raises(ValueError, match="reserve_s"):
        run_sweep([1], lambda p, c: {}, cache_dir=None, budget_s=1, reserve_s=bad, progress=False)


def test_keys_name_no_device_and_the_worker_resolves_auto(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")

    def resolve(device="auto"):
        # the driver sees a device the workers lack: only their own resolution can train
        if device != "auto":
            return torch.device(device)
        try:
            distributed.get_worker()
        except ValueError:
            return torch.device("meta")
        return torch.device("cpu")

    for module in (seqmi.device, ch06_copy_tasks, ch06_transfer, seqmi.recipes.copy_tasks, seqmi.train.loop,
                   seqmi.train.lm, seqmi.train.families):
        monkeypatch.setattr(module, "resolve_device", resolve)
    settings = ch06.GridSettings(hidden=4, steps=2, batch=2, lr=1e-2, seed=0, device="auto")
    point = ("copy", 3, "rnn", 0)
    assert seqmi.device.resolve_device("auto").type == "meta"
    assert len({sweep_key("grid", point, replace(settings, device=d)) for d in ("auto", "cpu", "cuda")}) == 1
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        done = run_sweep([point], partial(ch06.grid_point, settings=settings), cache_dir=tmp_path,
                         executor=client.get_executor(pure=False), name="grid", progress=False)
    assert done.done[point]["device"] == "cpu"
    again = run_sweep([point], partial(ch06.grid_point, settings=replace(settings, device="cpu")),
                      cache_dir=tmp_path, name="grid", progress=False)
    assert again.computed == [] and again.done == done.done
