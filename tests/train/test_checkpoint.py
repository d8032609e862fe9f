"""Checkpoints: the one resume path, what it refuses, the format on disk, and runs resumed from it."""

import re
from dataclasses import asdict

import numpy as np
import pytest
import torch
from torch import nn

from seqmi.models.lm import RNNLM
from seqmi.sweep import Budget, OutOfTime
from seqmi.train import CHECKPOINT_FILE, Batches, Member, Sequences, Task, TrainConfig, train, train_family
from seqmi.train.checkpoint import Checkpoint, FamilyState, FinishedRun, fit_checkpointed, resume

WEIGHTS = torch.tensor([1.0, -2.0, 0.5])
CONFIG = TrainConfig(optimizer="adam", lr=0.05, clip=None, batch_size=8, max_epochs=3, patience=None, restarts=1)


def regression_task(seen=None):
    """Four batches an epoch drawn from the member's generator (replayable); ``seen`` collects every step's loss."""

    def epoch(rng, step):
        for _ in range(4):
            x = torch.as_tensor(rng.standard_normal((8, 3)), dtype=torch.float32)
            yield x, x @ WEIGHTS

    def loss(model, batch):
        x, y = batch
        value = ((model(x).squeeze(-1) - y) ** 2).mean()
        if seen is not None:
            seen.append(float(value.detach()))
        return value, len(x)

    held_out = torch.as_tensor(np.random.default_rng(9).standard_normal((16, 3)), dtype=torch.float32)

    @torch.no_grad()
    def evaluate(model):
        return float(((model(held_out).squeeze(-1) - held_out @ WEIGHTS) ** 2).mean())

    return Task(Batches(4, epoch), loss, evaluate=evaluate)


def members(task, seeds=(0, 1)):
    """Members whose dropout draws from torch's generator: a resume must restore it too."""
    built = []
    for seed in seeds:
        torch.manual_seed(seed)
        model = nn.Sequential(nn.Linear(3, 8), nn.Dropout(0.2), nn.Linear(8, 1))
        built.append(Member(model, CONFIG, np.random.default_rng(seed), task))
    return built


def configs_of(group):
    return [asdict(m.config) for m in group]


class StopAfter(Budget):
    """A budget that is spent at its ``k + 1``-th look (after ``k + 1`` steps)."""

    def __init__(self, k):
        super().__init__(0)
        self.left = k

    def training_spent(self):
        self.left -= 1
        return self.left < 0


def assert_same_state(a, b, timed=True):
    """``a`` and ``b`` hold the same state; ``timed``: their training times too (restored, not measured)."""
    for x, y in zip(a.model.state_dict().values(), b.model.state_dict().values()):
        assert torch.equal(x, y)
    assert a.optimizer.state_dict()["state"].keys() == b.optimizer.state_dict()["state"].keys()
    for s, t in zip(a.optimizer.state_dict()["state"].values(), b.optimizer.state_dict()["state"].values()):
        assert all(torch.equal(s[k], t[k]) for k in s)
    assert a.scheduler.state_dict() == b.scheduler.state_dict()
    assert a.rng.bit_generator.state == b.rng.bit_generator.state
    for k in ("epoch", "step", "bad", "tokens", "best", "stopped", "step_losses", "eval_steps", "eval_metric",
              "epoch_start") + (("busy_s",) if timed else ()):
        assert getattr(a, k) == getattr(b, k), k


def test_without_a_checkpoint_nothing_is_restored(tmp_path):
    def never(group):
        raise AssertionError("no member to restore")

    assert resume(None, [], never) is None
    assert resume(tmp_path / CHECKPOINT_FILE, [], never, extra={}) is None


def test_resume_restores_members_generators_and_extra_in_place(tmp_path):
    task = regression_task()
    trained = members(task)
    # stopped inside the second epoch: the members hold an epoch's start and sums
    with pytest.raises(OutOfTime):
        fit_checkpointed(trained, task, tmp_path, extra={"notes": [1, 2]}, budget=StopAfter(5), progress=False)
    saved_rng = torch.get_rng_state()
    torch.manual_seed(123)  # what the resumed process would have drawn since
    fresh, notes, asked = members(task), [], []
    checkpoint = resume(tmp_path / CHECKPOINT_FILE, configs_of(fresh), lambda g: asked.append(g) or fresh,
                        extra={"notes": notes})
    assert asked == [None] and notes == [1, 2] and checkpoint.extra == {"notes": [1, 2]}
    assert trained[0].epoch_start is not None
    for a, b in zip(trained, fresh):
        assert_same_state(a, b)
    assert torch.equal(torch.get_rng_state(), saved_rng)


def test_a_run_stopped_inside_an_epoch_resumes_bit_for_bit(tmp_path):
    whole_seen = []
    task = regression_task(whole_seen)
    whole = members(task)
    fit_checkpointed(whole, task, None, extra={"seen": whole_seen}, progress=False)
    stops = 0
    while True:
        seen = []  # as a new process starts: the checkpoint holds the members' state and the list's
        task = regression_task(seen)
        resumed = members(task)
        try:
            fit_checkpointed(resumed, task, tmp_path, extra={"seen": seen}, budget=StopAfter(2), progress=False)
            break
        except OutOfTime:
            stops += 1
            assert resumed[0].epoch_start is not None  # stopped inside an epoch
    assert stops == 4  # of 12 steps, after steps 3, 5, 8 and 10 (an epoch's end is a look too)
    for a, b in zip(whole, resumed):
        assert_same_state(a, b, timed=False)
    # the list a task keeps beside the members is restored, not refilled by the replayed batches
    assert seen == whole_seen


def test_resume_refuses_another_run_naming_the_file(tmp_path):
    task = regression_task()
    group = members(task)
    path = tmp_path / CHECKPOINT_FILE
    Checkpoint.of(configs_of(group), group, extra={"notes": []}).save(path)
    other = [asdict(TrainConfig(lr=0.01))] * 2
    with pytest.raises(ValueError, match=re.escape(f"checkpoint {path} was written with a different config")):
        resume(path, other, lambda g: group, extra={"notes": []})
    with pytest.raises(ValueError, match="different config"):
        resume(path, configs_of(group), lambda g: group, extra={"rollouts": []})
    with pytest.raises(ValueError, match="written by fit_checkpointed, another kind of run"):
        resume(path, configs_of(group), lambda g: group)
    Checkpoint(configs_of(group), family=FamilyState()).save(path)
    with pytest.raises(ValueError, match="written by train_family, another kind of run"):
        resume(path, configs_of(group), lambda g: group, extra={})
    torch.save({"weights": {}}, path)
    with pytest.raises(ValueError, match=re.escape(f"{path} is not a training checkpoint")):
        resume(path, configs_of(group), lambda g: group)


def finished_payload(**changes):
    payload = {"best": 0.5, "best_state": None, "epochs": 2, "stopped": "epochs", "tokens": 10, "busy_s": 1.0,
               "step_losses": [1.0, 0.5], "eval_steps": [1, 2], "eval_metric": [0.7, 0.5], "steps_to_target": None}
    return {**payload, **changes}


def test_the_format_on_disk_is_the_dictionary_of_before(tmp_path):
    # checkpoints in caches were written as plain dictionaries with these keys: they stay readable
    task = regression_task()
    group = members(task)
    configs = configs_of(group)
    fit_keys = {"configs", "members", "extra", "torch_rng"}
    assert set(Checkpoint.of(configs, group, extra={"x": [1]}).payload()) - {"cuda_rng"} == fit_keys
    family = FamilyState(1, {(0, 0): FinishedRun.from_payload(finished_payload())}, [{"config": 0}])
    training = Checkpoint.of(configs, group, family=family).payload()
    assert set(training) - {"cuda_rng"} == {"configs", "finished", "history", "group", "members", "torch_rng"}
    assert training["finished"] == {(0, 0): finished_payload()}
    assert set(Checkpoint.of(configs, None, family=family).payload()) == {"configs", "finished", "history", "group"}


def test_a_family_checkpoint_restores_the_group_it_was_written_in(tmp_path):
    task = regression_task()
    group = members(task)
    path = tmp_path / CHECKPOINT_FILE
    # as written before stop reasons were recorded: a finished run without "stopped"
    old = finished_payload()
    del old["stopped"]
    payload = {"configs": configs_of(group), "finished": {(0, 0): old}, "history": [{"config": 0, "restart": 0}],
               "group": 1, "members": [m.state_dict() for m in group], "torch_rng": torch.get_rng_state()}
    torch.save(payload, path)
    asked = []
    checkpoint = resume(path, configs_of(group), lambda g: asked.append(g) or members(task))
    assert asked == [1] and checkpoint.family.group == 1
    assert checkpoint.family.finished == {(0, 0): FinishedRun.from_payload(finished_payload(stopped=None))}
    assert checkpoint.family.history == [{"config": 0, "restart": 0}]
    # a finished run's checkpoint holds no members: nothing is built, torch's generator is left alone
    torch.save({k: payload[k] for k in ("configs", "finished", "history", "group")}, path)
    before = torch.get_rng_state()
    assert resume(path, configs_of(group), lambda g: asked.append(g)).members is None
    assert asked == [1] and torch.equal(torch.get_rng_state(), before)


def markov_rows(n, length, seed):
    rng = np.random.default_rng(seed)
    flips = rng.random((n, length)) < 0.1
    return (np.cumsum(flips, axis=1) + rng.integers(2, size=(n, 1))) % 2


DATA = Sequences(markov_rows(64, 24, 0), markov_rows(32, 24, 1))


def make_lstm():
    return RNNLM(2, width=6, depth=1, cell="lstm", embed_dim=2)


class Interrupt(Exception):
    pass


def test_a_family_run_interrupted_in_its_second_group_resumes_there(tmp_path):
    # two batch sizes: two groups, trained one after the other
    configs = [TrainConfig(lr=0.01, batch_size=16, max_epochs=2, restarts=2, seed=3),
               TrainConfig(lr=0.02, batch_size=32, max_epochs=3, restarts=1, seed=4)]
    whole = train_family(make_lstm, DATA, configs, progress=False)

    def stop(record):
        if record["config"] == 1 and record["epoch"] == 2:
            raise Interrupt

    with pytest.raises(Interrupt):
        train_family(make_lstm, DATA, configs, checkpoint_dir=tmp_path, progress=False, on_epoch_end=stop)
    saved = torch.load(tmp_path / CHECKPOINT_FILE, weights_only=False)
    assert saved["group"] == 1 and set(saved["finished"]) == {(0, 0), (0, 1)}
    resumed = train_family(make_lstm, DATA, configs, checkpoint_dir=tmp_path, progress=False)
    for a, b in zip(whole, resumed):
        for x, y in zip(a.model.state_dict().values(), b.model.state_dict().values()):
            assert torch.equal(x, y)
        assert a.restart_val_losses == b.restart_val_losses and a.stop_reasons == b.stop_reasons
        assert [{k: v for k, v in h.items() if k != "epoch_s"} for h in a.history] == \
            [{k: v for k, v in h.items() if k != "epoch_s"} for h in b.history]


def test_checkpoint_keeps_the_cuda_generators_when_cuda_is_available(tmp_path, fake_cuda_generators):
    restored = fake_cuda_generators([torch.arange(8, dtype=torch.uint8)])
    config = TrainConfig(lr=0.01, batch_size=16, max_epochs=3, restarts=1, seed=3)

    def stop(record):
        if record["epoch"] == 1:
            raise Interrupt

    with pytest.raises(Interrupt):
        train(make_lstm, DATA, config, device="cpu", checkpoint_dir=tmp_path, progress=False, on_epoch_end=stop)
    saved = torch.load(tmp_path / CHECKPOINT_FILE, weights_only=False)
    assert [s.tolist() for s in saved["cuda_rng"]] == [list(range(8))]
    assert saved["torch_rng"].dtype == torch.uint8
    train(make_lstm, DATA, config, device="cpu", checkpoint_dir=tmp_path, progress=False)
    assert [[s.tolist() for s in r] for r in restored] == [[list(range(8))]]
