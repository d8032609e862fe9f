"""Sweeps: keys, cache and resume, budget, errors, executors (Dask)."""

import json
import os
import re
import subprocess
import sys
import threading
import time
import zlib
from collections import namedtuple
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from seqmi import sweep
from seqmi.sweep import (
    SINGLE_THREADED_ENV, Budget, OutOfTime, SweepError, check_scheduler, current_budget, open_executor, run_sweep,
    sweep_key,
)

ROOT = Path(__file__).resolve().parents[1]
POINTS = [("a", 5), ("b", 50), ("c", 500), ("d", 7)]


# Module-level computes: Dask workers import this module to unpickle them.
def noise_stats(point, checkpoint_dir):
    """A cheap deterministic record seeded by the point."""
    kind, n = point
    x = np.random.default_rng([zlib.crc32(kind.encode()), n]).standard_normal(n)
    return {"kind": kind, "n": n, "mean": float(x.mean()), "sum_sq": float((x ** 2).sum()),
            "head": tuple(x[:3].tolist())}


def worker_environment(point, checkpoint_dir):
    """The thread settings of the process computing the point."""
    return {name: os.environ.get(name) for name in SINGLE_THREADED_ENV}


class Recorder:
    """A compute that records its calls and fails on request."""

    def __init__(self, fail_on=None):
        self.calls, self.fail_on = [], fail_on

    def __call__(self, point, checkpoint_dir):
        self.calls.append((point, checkpoint_dir))
        if point == self.fail_on:
            raise ValueError("diverged")
        return noise_stats(point, checkpoint_dir)


def cache_files(folder):
    return sorted(p.name for p in Path(folder).glob("*.json"))


# ---------------------------------------------------------------- keys


def test_sweep_key_is_readable_and_hashes_point_and_spec():
    key = sweep_key("binary", ("lstm", 8, 1), {"n": 100})
    assert key.startswith("binary_lstm_8_1_") and len(key) == len("binary_lstm_8_1_") + 10
    assert key == sweep_key("binary", ("lstm", 8, 1), {"n": 100})
    assert key != sweep_key("binary", ("lstm", 8, 1), {"n": 101})
    assert key != sweep_key("binary", ("lstm", 8, 2), {"n": 100})
    assert key != sweep_key("text", ("lstm", 8, 1), {"n": 100})
    spec = sweep_key("binary", ("lstm", 8, 1), {"lr": 0.005, "n": 100})
    assert spec == sweep_key("binary", ("lstm", 8, 1), {"n": 100, "lr": 0.005})


def test_keys_describe_dataclasses_and_named_tuples_by_their_fields():
    @dataclass(frozen=True)
    class Point:
        kind: str
        width: int

    Pair = namedtuple("Pair", "kind width")
    as_dict = sweep_key("p", {"kind": "rnn", "width": np.int64(4)})
    assert sweep_key("p", Point("rnn", 4)) == sweep_key("p", Pair("rnn", 4)) == as_dict
    assert sweep_key("s", Point("rnn", 4)).startswith("s_kind_rnn_width_4_")
    with pytest.raises(TypeError, match="cannot describe object"):
        sweep_key("p", ("a", 1), {"make": object()})
    with pytest.raises(TypeError, match="non-string keys"):
        sweep_key("p", ("a", 1), {1: 2})


# ---------------------------------------------------------------- cache and resume


def test_run_sweep_caches_every_point_and_resumes(tmp_path):
    compute = Recorder()
    first = run_sweep(POINTS, compute, cache_dir=tmp_path, spec={"n_train": 10}, name="toy", progress=False)
    assert first.complete and first.pending == [] and first.computed == POINTS
    assert list(first.done) == POINTS and set(first.seconds) == set(POINTS)
    assert [c[1] for c in compute.calls] == [str(tmp_path / sweep_key("toy", p, {"n_train": 10})) for p in POINTS]
    assert cache_files(tmp_path) == sorted(f"{sweep_key('toy', p, {'n_train': 10})}.json" for p in POINTS)
    # the same types whether computed now or read back: tuples are JSON lists
    assert first.done[("a", 5)]["head"] == json.loads((tmp_path / cache_files(tmp_path)[0]).read_text())["head"]

    again = run_sweep(POINTS + POINTS[:1], compute, cache_dir=tmp_path, spec={"n_train": 10}, name="toy",
                      progress=False)
    assert len(compute.calls) == 4 and again.computed == [] and again.done == first.done
    assert "4 of 4 points done (0 computed" in str(again)

    more = run_sweep(POINTS + [("e", 3)], compute, cache_dir=tmp_path, spec={"n_train": 10}, name="toy",
                     progress=False)
    assert more.computed == [("e", 3)] and len(compute.calls) == 5

    changed = run_sweep(POINTS, compute, cache_dir=tmp_path, spec={"n_train": 20}, name="toy", progress=False)
    assert changed.computed == POINTS and len(compute.calls) == 9


def test_run_sweep_without_a_cache_computes_everything(tmp_path):
    compute = Recorder()
    result = run_sweep(POINTS, compute, cache_dir="", progress=False)
    assert result.complete and [c[1] for c in compute.calls] == [None] * 4
    assert result.done[("a", 5)]["head"] == list(noise_stats(("a", 5), None)["head"])
    run_sweep(POINTS, compute, cache_dir=None, progress=False)
    assert len(compute.calls) == 8


def test_checkpoint_folders_are_absolute_for_workers_elsewhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    compute = Recorder()
    run_sweep(POINTS[:1], compute, cache_dir="cache", progress=False)
    assert compute.calls[0][1] == str(tmp_path / "cache" / sweep_key("sweep", POINTS[0]))
    assert cache_files(tmp_path / "cache") == [f"{sweep_key('sweep', POINTS[0])}.json"]


def test_an_unreadable_cache_file_is_recomputed(tmp_path):
    (tmp_path / f"{sweep_key('sweep', ('a', 5))}.json").write_text('{"cut short')
    result = run_sweep([("a", 5)], noise_stats, cache_dir=tmp_path, progress=False)
    assert result.computed == [("a", 5)]
    assert run_sweep([("a", 5)], noise_stats, cache_dir=tmp_path, progress=False).computed == []


# ---------------------------------------------------------------- budget


def test_budget():
    assert not Budget(0).spent() and Budget(0).remaining() == float("inf")
    spent = Budget(1e-9)
    assert spent.spent() and spent.remaining() == 0
    with pytest.raises(OutOfTime):
        spent.check({})
    assert not current_budget().spent()
    # what a sweep may spend: no limit, or a spent budget as the smallest positive one
    assert Budget(0).for_sweep() is None and 0 < spent.for_sweep() <= 1e-9
    assert 3000 < Budget(3600).for_sweep() <= 3600


def test_budget_leaves_points_pending_and_a_second_run_finishes(tmp_path, monkeypatch):
    # a fake clock: each point takes 10 s, the budget is 25 s
    clock = [1000.0]
    monkeypatch.setattr(sweep, "time", SimpleNamespace(time=lambda: clock[0], perf_counter=time.perf_counter))
    started = []

    def compute(point, checkpoint_dir):
        started.append(point)
        clock[0] += 10
        current_budget().check()  # as train's epoch callback would, with the checkpoint saved
        return noise_stats(point, checkpoint_dir)

    first = run_sweep(POINTS, compute, cache_dir=tmp_path, budget_s=25, progress=False)
    assert list(first.done) == POINTS[:2] and first.pending == POINTS[2:] and not first.complete
    assert started == POINTS[:3], "the third point started in time and stopped itself; the fourth never started"
    assert "2 pending: run again with the same cache_dir" in str(first)
    second = run_sweep(POINTS, compute, cache_dir=tmp_path, budget_s=None, progress=False)
    assert second.complete and second.computed == POINTS[2:] and started == POINTS[:3] + POINTS[2:]
    assert second.done == run_sweep(POINTS, noise_stats, cache_dir=None, progress=False).done


def test_a_point_resumed_by_a_later_run_costs_the_seconds_of_every_run(tmp_path, monkeypatch):
    # a fake clock: the first run spends 40 s on the point and stops, the second 25 s more
    clock = [0.0]
    monkeypatch.setattr(sweep, "time", SimpleNamespace(time=time.time, perf_counter=lambda: clock[0]))
    spent = iter([40.0, 25.0])

    def compute(point, checkpoint_dir):
        clock[0] += next(spent)
        if not (Path(checkpoint_dir) / "checkpoint").exists():
            (Path(checkpoint_dir) / "checkpoint").parent.mkdir(parents=True, exist_ok=True)
            (Path(checkpoint_dir) / "checkpoint").touch()
            raise OutOfTime  # as train does once its checkpoint is saved
        return noise_stats(point, checkpoint_dir)

    first = run_sweep(POINTS[:1], compute, cache_dir=tmp_path, progress=False, ledger=tmp_path / "points")
    assert first.pending == POINTS[:1]
    second = run_sweep(POINTS[:1], compute, cache_dir=tmp_path, progress=False, ledger=tmp_path / "points")
    assert second.seconds[POINTS[0]] == pytest.approx(65.0)
    (entry,) = [json.loads(p.read_text()) for p in (tmp_path / "points").glob("*.json")]
    assert entry["seconds"] == pytest.approx(65.0)


def test_a_killed_run_has_counted_its_seconds_up_to_its_last_beat(tmp_path, monkeypatch):
    monkeypatch.setattr(sweep, "SPENT_EVERY_S", 0.01)
    watch = sweep._Stopwatch(str(tmp_path))
    time.sleep(0.1)
    # never stopped, as a run killed outright: a later run reads what the beats wrote
    assert 0.0 < sweep._Stopwatch(str(tmp_path)).before <= watch.total()
    assert sweep._Stopwatch(None).stop() >= 0.0


def test_budget_with_an_executor_cancels_what_has_not_finished(tmp_path):
    release = threading.Event()

    def compute(point, checkpoint_dir):
        if point[0] in "cd":
            release.wait()
        return noise_stats(point, checkpoint_dir)

    points = POINTS + [("e", 3)]
    with ThreadPoolExecutor(2) as executor:
        try:
            result = run_sweep(points, compute, cache_dir=tmp_path, executor=executor, budget_s=0.5, progress=False)
        finally:
            release.set()
    assert list(result.done) == points[:2] and result.pending == points[2:]
    assert len(cache_files(tmp_path)) == 2
    assert run_sweep(points, noise_stats, cache_dir=tmp_path, progress=False).computed == points[2:]


@pytest.mark.parametrize("budget_s", [-1.0, float("nan")])
def test_run_sweep_rejects_a_negative_budget_and_a_bad_name(budget_s):
    with pytest.raises(ValueError, match="budget_s must be"):
        run_sweep(POINTS, noise_stats, cache_dir=None, budget_s=budget_s)
    with pytest.raises(ValueError, match="name must be"):
        run_sweep(POINTS, noise_stats, cache_dir=None, name="a/b")


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("threads", [0, 2])
def test_an_error_names_the_point_and_keeps_what_finished(tmp_path, threads):
    compute = Recorder(fail_on=("c", 500))
    executor = ThreadPoolExecutor(threads) if threads else None
    try:
        with pytest.raises(SweepError, match=r"sweep 'toy': point \('c', 500\) failed: ValueError: diverged") as err:
            run_sweep(POINTS, compute, cache_dir=tmp_path, executor=executor, name="toy", progress=False)
    finally:
        if executor is not None:
            executor.shutdown()
    assert isinstance(err.value.__cause__, ValueError)
    cached = set(cache_files(tmp_path))
    assert f"{sweep_key('toy', ('c', 500))}.json" not in cached
    if threads:  # what finished before the failure was collected is cached
        assert cached <= {f"{sweep_key('toy', p)}.json" for p, _ in compute.calls}
    else:  # in order: the points before are cached, the one after never started
        assert cached == {f"{sweep_key('toy', p)}.json" for p in POINTS[:2]} and len(compute.calls) == 3


def test_a_record_that_is_not_a_json_dict_is_an_error():
    with pytest.raises(SweepError, match=r"point \('a', 5\): compute returned a list"):
        run_sweep([("a", 5)], lambda p, c: [1], cache_dir=None, progress=False)
    with pytest.raises(SweepError, match=r"point \('a', 5\) failed: TypeError"):
        run_sweep([("a", 5)], lambda p, c: {"x": object()}, cache_dir=None, progress=False)


# ---------------------------------------------------------------- executors


@pytest.mark.parametrize("value", ["", "local:1", "local:16", "tcp://10.0.0.5:8786", "tcp://gpu-node.lan:8786",
                                   "tcp://[::1]:8786"])
def test_check_scheduler_accepts_the_documented_forms(value):
    assert check_scheduler("scheduler", value) == value


@pytest.mark.parametrize("value", ["local", "local:0", "local:-1", "local:two", "local:2 ", "tcp://host",
                                   "tcp://:8786", "tcp://host:0", "tcp://host:70000", "http://host:8786",
                                   "host:8786", "cuda", 2, None])
def test_bad_scheduler_strings_are_rejected_naming_value_and_forms(value):
    forms = r'scheduler must be "" \(in this process\), "local:N" .* or "tcp://HOST:PORT" .*, got '
    with pytest.raises(ValueError, match=forms + re.escape(repr(value)) + "$"):
        check_scheduler("scheduler", value)
    with pytest.raises(ValueError, match="scheduler must be"):
        with open_executor(value):
            pass


def test_import_stays_light_and_in_process_needs_no_dask():
    code = ("import sys, seqmi.sweep as s\n"
            "with s.open_executor('') as ex: assert ex is None\n"
            "print(sorted(m for m in ('dask', 'distributed', 'torch', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert out.stdout.strip() == "[]"


def test_a_local_dask_cluster_gives_the_in_process_records(tmp_path):
    in_process = run_sweep(POINTS, noise_stats, cache_dir=None, progress=False)
    with open_executor("local:2") as executor:
        distributed = run_sweep(POINTS, noise_stats, cache_dir=tmp_path, executor=executor, progress=False)
        environments = run_sweep(range(4), worker_environment, cache_dir=None, executor=executor,
                                 progress=False)
    assert list(distributed.done) == POINTS and distributed.done == in_process.done
    assert len(cache_files(tmp_path)) == 4
    assert all(env == SINGLE_THREADED_ENV for env in environments.done.values())
    assert run_sweep(POINTS, noise_stats, cache_dir=tmp_path, progress=False).computed == []


def test_a_tcp_scheduler_runs_the_sweep_on_single_threaded_workers():
    from distributed import LocalCluster

    # a cluster started as `dask scheduler` and `dask worker` would be: no thread settings
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with open_executor(cluster.scheduler_address) as executor:
            environments = run_sweep(range(2), worker_environment, cache_dir=None, executor=executor,
                                     progress=False)
            records = run_sweep(POINTS, noise_stats, cache_dir=None, executor=executor, progress=False)
    assert all(env == SINGLE_THREADED_ENV for env in environments.done.values())
    assert records.done == run_sweep(POINTS, noise_stats, cache_dir=None, progress=False).done


def test_an_absent_scheduler_is_an_error_naming_its_address():
    with pytest.raises(OSError, match="tcp://127.0.0.1:1 after"):
        with open_executor("tcp://127.0.0.1:1", timeout_s=0.5):
            pass


def test_a_measurement_change_recomputes_records_from_the_same_checkpoints(tmp_path):
    trainings = []

    def compute(point, checkpoint_dir):
        done = Path(checkpoint_dir) / "trained"
        if not done.exists():  # what train_family's final checkpoint does: a rerun skips training
            trainings.append(point)
            done.parent.mkdir(parents=True)
            done.write_text("weights")
        return {"checkpoint": checkpoint_dir}

    first = run_sweep(POINTS[:2], compute, cache_dir=tmp_path, spec={"n_train": 10, "n_generate": 100},
                      checkpoint_spec={"n_train": 10}, name="toy", progress=False)
    more = run_sweep(POINTS[:2], compute, cache_dir=tmp_path, spec={"n_train": 10, "n_generate": 800},
                     checkpoint_spec={"n_train": 10}, name="toy", progress=False)
    assert more.computed == POINTS[:2], "a new measurement setting recomputes every record"
    assert trainings == POINTS[:2], "... from the checkpoints of the first run, without training again"
    assert more.done == first.done
    retrained = run_sweep(POINTS[:1], compute, cache_dir=tmp_path, spec={"n_train": 20, "n_generate": 800},
                          checkpoint_spec={"n_train": 20}, name="toy", progress=False)
    assert trainings == POINTS[:2] + POINTS[:1] and retrained.done != first.done


def test_two_runs_sharing_a_cache_split_the_points(tmp_path):
    # the other run finishes the last point while this one computes the first
    other = []

    def compute(point, checkpoint_dir):
        if not other:
            other.append(run_sweep(POINTS[-1:], noise_stats, cache_dir=tmp_path, name="toy", progress=False))
        return noise_stats(point, checkpoint_dir)

    result = run_sweep(POINTS, compute, cache_dir=tmp_path, name="toy", progress=False)
    assert other[0].computed == POINTS[-1:]
    assert result.computed == POINTS[:-1] and result.complete
    assert result.done == run_sweep(POINTS, noise_stats, cache_dir=None, progress=False).done


# ---------------------------------------------------------------- grouped points

GROUPED = [("a", 5), ("b", 50), ("a", 6), ("a", 7), ("b", 51)]


class GroupRecorder:
    """A grouped compute: the calls it saw, each point's record as ``noise_stats`` makes it alone."""

    def __init__(self, short=False):
        self.calls, self.short = [], short

    def __call__(self, points, checkpoint_dir):
        self.calls.append((points, checkpoint_dir))
        records = [noise_stats(point, checkpoint_dir) for point in points]
        return records[:-1] if self.short else records


def kind_of(point):
    return point[0]


@pytest.mark.parametrize("threads", [False, True])
def test_grouped_points_share_calls_and_are_stored_as_if_computed_alone(tmp_path, threads):
    """Points of one group go together (at most group_size), each record under its own key."""
    compute = GroupRecorder()
    with ThreadPoolExecutor(2) if threads else nullcontext() as executor:
        result = run_sweep(GROUPED, compute, cache_dir=tmp_path / "c", ledger=tmp_path / "l", name="g",
                           group=kind_of, group_size=2, executor=executor, progress=False)
    assert sorted(points for points, _ in compute.calls) == sorted(
        [(("a", 5), ("a", 6)), (("a", 7),), (("b", 50), ("b", 51))])
    assert list(result.done) == GROUPED and result.done[("a", 6)] == json.loads(json.dumps(noise_stats(("a", 6), None)))
    folders = {points: folder for points, folder in compute.calls}
    # a lone point checkpoints in its own folder; a pair in its pair's
    assert Path(folders[(("a", 7),)]).name == sweep_key("g", ("a", 7))
    assert Path(folders[(("a", 5), ("a", 6))]).name == sweep_key("g", (("a", 5), ("a", 6)))
    entries = [json.loads(p.read_text()) for p in (tmp_path / "l").glob("*.json")]
    assert sorted(tuple(e["point"]) for e in entries) == sorted(GROUPED)
    assert all(e["record"] == result.done[tuple(e["point"])] for e in entries)
    # the pair's time is split between its two points
    assert result.seconds[("a", 5)] == result.seconds[("a", 6)]
    # an ungrouped run reads every record back and computes nothing
    again = Recorder()
    rerun = run_sweep(GROUPED, again, cache_dir=tmp_path / "c", name="g", progress=False)
    assert again.calls == [] and rerun.done == result.done


def test_grouping_takes_only_the_pending_points(tmp_path):
    """A run after a partial one groups the points still pending, whichever finished them."""
    run_sweep(GROUPED[:2], Recorder(), cache_dir=tmp_path, name="g", progress=False)
    compute = GroupRecorder()
    result = run_sweep(GROUPED, compute, cache_dir=tmp_path, name="g", group=kind_of, group_size=3, progress=False)
    assert [points for points, _ in compute.calls] == [(("a", 6), ("a", 7)), (("b", 51),)]
    assert result.computed == [("a", 6), ("a", 7), ("b", 51)]


def test_a_grouped_compute_must_return_one_record_per_point(tmp_path):
    with pytest.raises(SweepError, match="must return a list of 2 records"):
        run_sweep(GROUPED, GroupRecorder(short=True), cache_dir=None, name="g", group=kind_of, group_size=2,
                  progress=False)


@pytest.mark.parametrize("size", [0, -1, 1.5])
def test_group_size_must_be_a_positive_integer(size):
    with pytest.raises(ValueError, match="group_size"):
        run_sweep(GROUPED, GroupRecorder(), cache_dir=None, group=kind_of, group_size=size, progress=False)
