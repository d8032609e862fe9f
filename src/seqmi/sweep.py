"""Sweeps: many independent points, each cached as JSON, resumable, optionally distributed.

A paper-scale sweep (dozens of models, each trained ``restarts`` times) takes longer
than one papermill run may. :func:`run_sweep` therefore caches every finished point as
JSON under a ``cache_dir``, gives each point a checkpoint folder (:func:`seqmi.train.train`
resumes exactly from it), and stops cleanly when a wall-clock budget is spent: running
the same chapter again computes only the points still pending, and the last run, with
no point pending, has the whole sweep. Points can run in worker processes or on other
machines through any ``concurrent.futures.Executor``; :func:`open_executor` maps a
chapter's ``scheduler`` parameter to one (in-process, a local Dask cluster, or a running
Dask scheduler).

This module is the generic engine only; what a point computes lives with its chapter
(:mod:`seqmi.experiments`). It imports neither torch nor Dask at import time: a sweep
worker that unpickles :func:`run_sweep`'s task loads only what its ``compute`` needs.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, CancelledError, Executor, Future, wait
from contextlib import contextmanager
from pathlib import Path, PurePath
from typing import Any

import numpy as np

from seqmi._optional import require
from seqmi.device import thread_env
from seqmi.ledger import Ledger, write_json
from seqmi.passes import log_point, log_sweep
from seqmi.progress import progress_bar
from seqmi.validate import check_float, check_int

# ---------------------------------------------------------------- budget


class OutOfTime(Exception):
    """Raised by :meth:`Budget.check` once the budget is spent.

    Raised inside a sweep point's ``compute``, it means "this point is pending, its
    checkpoint is saved": :func:`run_sweep` leaves the point pending instead of failing.
    """


class Budget:
    """A wall-clock budget in seconds; ``seconds = 0`` means unlimited.

    The deadline is absolute wall-clock time (``time.time()``), so a budget sent to a
    worker process or another machine ends at the same moment there (clocks agreeing).

    Parameters
    ----------
    seconds : float
        The budget, counted from now (>= 0).
    reserve_s : float
        The last seconds of the budget, kept for measuring what was trained: training
        stops once fewer remain (:meth:`training_spent`), and a point whose training ends
        then is measured by the next run.
    """

    def __init__(self, seconds: float, reserve_s: float = 0.0) -> None:
        self.seconds = check_float("seconds", seconds, 0.0)
        self.reserve_s = check_float("reserve_s", reserve_s, 0.0)
        self.deadline = time.time() + self.seconds if self.seconds > 0 else math.inf

    def remaining(self) -> float:
        """Seconds left (``inf`` when unlimited, 0 once spent)."""
        return max(0.0, self.deadline - time.time())

    def for_sweep(self) -> float | None:
        """What the next sweep may spend of this budget: its ``budget_s`` for :func:`run_sweep`.

        ``None`` when the budget is unlimited; a spent budget goes out as the smallest
        positive one, since :func:`run_sweep` reads 0 as "no limit".
        """
        return None if self.seconds == 0 else max(self.remaining(), 1e-9)

    def spent(self) -> bool:
        """Whether the budget is used up."""
        return time.time() >= self.deadline

    def check(self, *_: Any) -> None:
        """Raise :class:`OutOfTime` if the budget is spent (usable as an epoch callback)."""
        if self.spent():
            raise OutOfTime

    def training_spent(self) -> bool:
        """Whether training must stop: no more than ``reserve_s`` seconds are left."""
        return time.time() >= self.deadline - self.reserve_s

    def check_training(self) -> None:
        """Raise :class:`OutOfTime` if :meth:`training_spent`: before a point's training or its measurement."""
        if self.training_spent():
            raise OutOfTime


_UNLIMITED = Budget(0)
# the budget of the point being computed, per thread: a Dask worker runs tasks in threads
_current = threading.local()


def current_budget() -> Budget:
    """The budget of the sweep whose point is being computed in this thread.

    Inside :func:`run_sweep`'s ``compute`` (in-process or on a worker) this is the
    sweep's :class:`Budget`, so ``compute`` can stop itself cleanly, e.g.
    ``train(..., on_epoch_end=current_budget().check)``; outside a sweep it is unlimited.
    """
    return getattr(_current, "budget", _UNLIMITED)


# ---------------------------------------------------------------- keys and the JSON cache


def unkeyed(default: Any) -> Any:
    """A dataclass field left out of every cache key: where a point runs, not what it computes.

    A settings record's ``device`` is one: ``"auto"`` is resolved by the worker that
    computes the point, and a point computed on a GPU or a CPU is found under one key
    (each point's record says where it ran).

    Parameters
    ----------
    default : Any
        The field's default value.
    """
    return dataclasses.field(default=default, metadata={"key": False})


def describe(value: Any) -> Any:
    """``value`` as JSON-native data, as cache keys see it (fields made by :func:`unkeyed` left out)."""
    return _describe(value)


def _describe(value: Any) -> Any:
    """``value`` as JSON-native data (the input of every cache key's hash).

    Dataclasses and named tuples become dicts of their fields (without those made by
    :func:`unkeyed`), tuples lists, numpy scalars Python numbers, paths POSIX strings.
    Anything else is an error, rather than its ``str``, which for most objects holds a
    memory address and would never hash the same twice.
    """
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, PurePath):
        return value.as_posix()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _describe(getattr(value, f.name)) for f in dataclasses.fields(value)
                if f.metadata.get("key", True)}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {name: _describe(v) for name, v in zip(value._fields, value)}
    if isinstance(value, (tuple, list)):
        return [_describe(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError(f"cannot describe a dict with non-string keys as JSON: {value!r}")
        return {k: _describe(v) for k, v in value.items()}
    raise TypeError(f"cannot describe {type(value).__name__} {value!r} as JSON "
                    "(use numbers, strings, tuples, lists, dicts, dataclasses or named tuples)")


def _canonical_json(value: Any) -> str:
    return json.dumps(_describe(value), sort_keys=True)


def seed_block(name: str, offset: int, replicates: int) -> range:
    """The replicate seeds ``offset .. offset + replicates - 1`` of the sweep ``name``.

    A decisive run's seeds start past those of its pilot (``offset``); the checks name
    the chapters' parameters ``{name}_seed_offset`` and ``{name}_replicates``.
    """
    check_int(f"{name}_seed_offset", offset, 0)
    check_int(f"{name}_replicates", replicates, 1, 100)
    return range(offset, offset + replicates)


def point_label(point: Hashable) -> str:
    """A point as people read it: its JSON with other characters than letters, digits, ``.``
    and ``-`` as ``_``, cut at 48 characters (``("lstm", 8, 1)`` gives ``lstm_8_1``)."""
    return re.sub(r"[^A-Za-z0-9.-]+", "_", _canonical_json(point))[:48].strip("_")


def sweep_key(name: str, point: Hashable, spec: Any = None) -> str:
    """Cache key of ``point`` in :func:`run_sweep`: ``{name}_{label}_{hash}``.

    ``label`` is :func:`point_label` (``("lstm", 8, 1)`` gives ``lstm_8_1``), for people
    reading the cache folder. ``hash`` decides: the first
    10 hex digits of the SHA-1 of the JSON, keys sorted, of ``{"point": point, "spec":
    spec}``. ``point`` and ``spec`` are JSON-describable (numbers, strings, lists, tuples,
    dicts with string keys, dataclasses, named tuples), and any change of either (data
    size, training config, sampling settings) gives a new key, so a cache never returns
    a point computed under other settings. Dataclass fields made by :func:`unkeyed` (the
    device) are left out: a key names what a point computes, not where.
    """
    label = point_label(point)
    digest = hashlib.sha1(_canonical_json({"point": point, "spec": spec}).encode()).hexdigest()[:10]
    return f"{name}_{label}_{digest}" if label else f"{name}_{digest}"


def _read_record(path: Path) -> dict[str, Any] | None:
    """The cached record at ``path``, or ``None`` if absent or unreadable."""
    try:
        record = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (json.JSONDecodeError, UnicodeDecodeError):
        # a file cut short by a crash of a writer older than the atomic one: recompute it
        return None
    return record if isinstance(record, dict) else None


# ---------------------------------------------------------------- the sweep engine

#: Share of a sweep's budget kept for the measurements after training (:func:`run_sweep`).
RESERVE_SHARE = 0.2


class SweepError(RuntimeError):
    """A sweep point's ``compute`` failed; the message names the sweep and the point.

    The original exception is the ``__cause__``.
    """


@dataclasses.dataclass
class SweepResult:
    """What :func:`run_sweep` returns.

    Attributes
    ----------
    name : str
        The sweep's name.
    done : dict
        ``{point: record}`` of every finished point, in the order of the points given,
        whether computed now or read from the cache.
    pending : list
        The points not finished (budget spent), in order.
    computed : list
        The points of ``done`` computed by this call (the others came from the cache).
    seconds : dict
        ``{point: seconds}``: how long ``compute`` took for each point of ``computed``.
    wall_s : float
        Wall time of the call.
    keys : dict
        ``{point: key}`` of every point (:func:`sweep_key`): its name in the cache and the
        ledger, which a recording lists to say what it read.
    """

    name: str
    done: dict[Hashable, dict[str, Any]] = dataclasses.field(repr=False)
    pending: list[Hashable]
    computed: list[Hashable]
    seconds: dict[Hashable, float] = dataclasses.field(repr=False)
    wall_s: float
    keys: dict[Hashable, str] = dataclasses.field(default_factory=dict, repr=False)

    @property
    def complete(self) -> bool:
        """Whether no point is pending."""
        return not self.pending

    def __str__(self) -> str:
        total = len(self.done) + len(self.pending)
        text = (f"{self.name}: {len(self.done)} of {total} points done ({len(self.computed)} computed "
                f"in {self.wall_s:.1f} s, {len(self.done) - len(self.computed)} from the cache)")
        if self.pending:
            text += f", {len(self.pending)} pending: run again with the same cache_dir to continue"
        return text


# the seconds spent on a point by every run that worked on it, kept beside its checkpoint,
# and how often a run brings the count up to date (a run killed loses at most that much)
SPENT_FILE = "seconds_spent.json"
SPENT_EVERY_S = 30.0


class _Stopwatch:
    """Seconds spent on one point over every run, counted on from its checkpoint folder's count.

    A point trained in three runs (two stopped by their budget or killed) has cost the
    seconds of all three; the ledger and the campaign's estimates need that sum, not the
    last run's share. A daemon thread writes the running total every ``SPENT_EVERY_S``
    seconds, so a run killed outright loses at most that much.
    """

    def __init__(self, folder: str | None) -> None:
        self.path = Path(folder) / SPENT_FILE if folder is not None else None
        self.before = self._read()
        self.start = time.perf_counter()
        self.stopped = threading.Event()
        self.lock = threading.Lock()  # the last count written is the final one
        if self.path is not None:
            threading.Thread(target=self._beat, daemon=True).start()

    def _read(self) -> float:
        if self.path is None or not self.path.exists():
            return 0.0
        try:
            return float(json.loads(self.path.read_text())["seconds"])
        except (ValueError, KeyError, TypeError):
            return 0.0  # a count cut short by a kill: the run's own time still counts

    def total(self) -> float:
        """Seconds spent on the point so far, by this run and every earlier one."""
        return self.before + time.perf_counter() - self.start

    def _write(self, total: float) -> None:
        assert self.path is not None
        write_json(self.path, {"seconds": round(total, 2)})

    def _beat(self) -> None:
        while not self.stopped.wait(SPENT_EVERY_S):
            with self.lock:
                if not self.stopped.is_set():
                    self._write(self.total())

    def stop(self) -> float:
        """Stop counting, save the total for a later run, and return it."""
        with self.lock:
            self.stopped.set()
            total = self.total()
            if self.path is not None:
                self._write(total)
        return total


def _evaluate(compute: Callable[[Any, str | None], dict[str, Any]], point: Hashable,
              checkpoint_dir: str | None, budget: Budget) -> tuple[dict[str, Any] | None, float]:
    """Run ``compute`` for one point under ``budget``: ``(record or None if out of time, seconds)``.

    The seconds are those spent on the point by every run that worked on it (its
    checkpoint folder keeps the count). The task :func:`run_sweep` runs in-process or
    submits to an executor.
    """
    previous = current_budget()
    _current.budget = budget
    watch = _Stopwatch(checkpoint_dir)
    try:
        record = compute(point, checkpoint_dir)
    except OutOfTime:
        record = None
    finally:
        _current.budget = previous
        seconds = watch.stop()
    return record, seconds


# where run_sweep lists its points instead of computing them (plan_points), per process
_plan: dict[str, Path | None] = {"file": None}


def plan_points(path: str | os.PathLike | None) -> None:
    """Make every later :func:`run_sweep` of this process list its points instead of computing them.

    Each sweep appends one JSON line per point to ``path`` (``sweep``, ``label``, ``key``,
    ``point``, and ``stored``: whether the ledger or the cache already holds it) and
    returns as if its budget were spent: the stored points done, the others pending.
    A decisive run's campaign (:mod:`seqmi.campaign`) plans a chapter section so, to list
    what it would compute. ``None`` computes again.
    """
    _plan["file"] = Path(path) if path is not None else None


def run_sweep(points: Iterable[Hashable], compute: Callable[[Any, str | None], dict[str, Any]], *,
              cache_dir: str | os.PathLike | None, spec: Any = None, checkpoint_spec: Any = None,
              executor: Executor | None = None, budget_s: float | None = None, reserve_s: float | None = None,
              name: str = "sweep", progress: bool = True,
              ledger: str | os.PathLike | None = None,
              group: Callable[[Any], Hashable] | None = None, group_size: int = 1) -> SweepResult:
    """Compute ``compute(point, checkpoint_dir)`` for every point, cached, resumable, budgeted.

    Parameters
    ----------
    points : iterable of hashable
        Point specs, e.g. tuples ``("lstm", width, depth)``, frozen dataclasses or named
        tuples, made of numbers, strings, tuples and such (JSON-describable, see
        :func:`sweep_key`). A repeated point is computed once.
    compute : callable
        ``compute(point, checkpoint_dir) -> dict``: the point's record, JSON-ready.
        ``checkpoint_dir`` is a folder (an absolute path as a string, not created) for
        the point's checkpoints, ``None`` without a cache. Raising :class:`OutOfTime` (e.g. from
        ``current_budget().check``) leaves the point pending. With an ``executor``,
        ``compute`` is pickled with every point: make it a module-level function, or a
        ``functools.partial`` of one with small arguments (a worker rebuilding large
        data from a seed beats sending it with each point).
    cache_dir : path or None
        Finished points are ``cache_dir/<key>.json`` (:func:`sweep_key`), written
        atomically by this process (never by workers), and are read back instead of
        computed; a point's checkpoints go to ``cache_dir/<key>/`` (the key of
        ``checkpoint_spec``). In-process, the cache is read again before each point, so
        that two runs sharing it (one walking the points in reverse) split the work.
        ``None`` or ``""``: no cache, no checkpoints.
    spec : JSON-describable, optional
        What every point's record also depends on (data, training settings, seeds):
        part of every cache key, so changing it recomputes every point.
    checkpoint_spec : JSON-describable, optional
        What a point's checkpoints depend on (``None``: ``spec``). A part of ``spec`` that
        only the measurement after training reads (how many sequences a trained model
        generates) is left out of it: changing that part recomputes every record from
        the trained checkpoints instead of training again. It must hold everything that
        training reads.
    executor : concurrent.futures.Executor, optional
        Where points run (see :func:`open_executor`). ``None``: in this process, one after
        the other, in order. Otherwise all points are submitted at once and their
        records come back here as they finish. For workers on other machines,
        ``cache_dir`` should be on a filesystem they share, or a point's checkpoints
        help only the worker that wrote them.
    budget_s : float, optional
        Wall-clock budget of this call in seconds (``None`` or 0: unlimited). Once spent,
        in-process, no further point is started; ``compute`` sees the budget through
        :func:`current_budget` (also on workers) to interrupt itself cleanly. With an
        executor, collecting stops, the points not yet finished are cancelled and
        pending (a point that cannot be cancelled, running in a process pool, runs on
        but its record is dropped: its checkpoints remain).
    reserve_s : float, optional
        The budget's last seconds, kept for the measurements that close the points
        (``Budget.reserve_s``): training inside a point stops, checkpointed, once
        fewer are left. ``None``: :data:`RESERVE_SHARE` of ``budget_s``.
    name : str
        Prefix of every cache key and label of the progress bar: letters, digits, ``_``,
        ``.``, ``-``.
    progress : bool
        Show a tqdm bar over the points.
    ledger : path, optional
        A committed ledger of finished points (:mod:`seqmi.ledger`), e.g.
        ``results/points/<chapter>``: a point is read from it first, then from the
        cache, and every finished point (computed now, or found in a cache only) is
        written to it with its settings, time, commit and machine, so that a run
        continues on any machine from the points an earlier one committed. ``None`` or
        ``""``: no ledger.
    group : callable, optional
        Pending points with equal ``group(point)`` are computed together, up to
        ``group_size`` per call (e.g. the seeds of one model family, trained as one
        batched computation): ``compute`` then receives a tuple of points and returns a
        list of their records, in order. Each record is cached and entered in the ledger
        under its own point's key, as if computed alone, with the call's seconds split
        equally; only the points still pending are grouped, so a run continues from
        whichever points an earlier one finished. A call's checkpoints go to the folder
        of its tuple's key (a lone point's: its own). A record must not depend on which
        points share its call: ``compute`` promises it (the cache and the ledger assume
        it). ``None``: one point per call, ``compute(point, checkpoint_dir) -> dict``.
    group_size : int
        The most points one grouped call computes (>= 1; 1 with ``group`` gives every
        call a tuple of one point).

    Returns
    -------
    SweepResult

    Raises
    ------
    SweepError
        When ``compute`` raised anything but :class:`OutOfTime`, naming the point; the
        records of points finished before are cached.
    """
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"name must be letters, digits, '_', '.' or '-' (it starts file names), got {name!r}")
    if budget_s is not None and not budget_s >= 0:
        raise ValueError(f"budget_s must be None or >= 0 seconds, got {budget_s!r}")
    start = time.perf_counter()
    if reserve_s is not None and not reserve_s >= 0:
        raise ValueError(f"reserve_s must be None or >= 0 seconds, got {reserve_s!r}")
    check_int("group_size", group_size, 1)
    budget = Budget(budget_s or 0, RESERVE_SHARE * (budget_s or 0) if reserve_s is None else reserve_s)
    order = list(dict.fromkeys(points))
    keys = {point: sweep_key(name, point, spec) for point in order}
    trained = keys if checkpoint_spec is None else {point: sweep_key(name, point, checkpoint_spec) for point in order}
    # absolute: a worker's working directory need not be this process's
    cache = Path(cache_dir).absolute() if cache_dir else None
    book = Ledger(Path(ledger)) if ledger else None

    def checkpoint_dir(call: Hashable) -> str | None:
        if cache is None:
            return None
        if group is None:
            return str(cache / trained[call])
        # a lone point keeps its own folder; a group's depends on which points share it
        return str(cache / (trained[call[0]] if len(call) == 1 else
                            sweep_key(name, call, spec if checkpoint_spec is None else checkpoint_spec)))

    def stored(point: Hashable) -> dict[str, Any] | None:
        """The point's record from the ledger, else from the cache (then entered in the ledger), else None."""
        if book is not None:
            record = book.read(keys[point])
            if record is not None:
                return record
        record = _read_record(cache / f"{keys[point]}.json") if cache is not None else None
        if record is not None and book is not None:
            enter(point, record, None)
        return record

    def enter(point: Hashable, record: dict[str, Any], seconds: float | None) -> None:
        if book is not None:
            book.write(keys[point], sweep=name, point=describe(point), spec=describe(spec), record=record,
                       seconds=seconds)

    records: dict[Hashable, dict[str, Any]] = {}
    for point in order:
        record = stored(point)
        if record is not None:
            records[point] = record
    todo = [point for point in order if point not in records]
    computed: dict[Hashable, float] = {}
    if _plan["file"] is not None:
        with open(_plan["file"], "a") as f:
            for point in order:
                f.write(json.dumps({"sweep": name, "label": point_label(point), "key": keys[point],
                                    "point": describe(point), "stored": point in records}) + "\n")
        todo = []

    def fail(point: Hashable, err: BaseException) -> SweepError:
        return SweepError(f"sweep {name!r}: point {point!r} failed: {type(err).__name__}: {err}")

    def finish(point: Hashable, record: Any, seconds: float) -> None:
        if not isinstance(record, dict):
            raise SweepError(f"sweep {name!r}: point {point!r}: compute returned a "
                             f"{type(record).__name__}, not a dict")
        try:
            text = json.dumps(record)
        except (TypeError, ValueError) as err:
            raise fail(point, err) from err
        # the same types whether computed now, by a worker, or read from the cache
        records[point] = json.loads(text)
        computed[point] = seconds
        if cache is not None:
            write_json(cache / f"{keys[point]}.json", records[point])
        enter(point, records[point], seconds)
        bar.update(1)
        log_point(name, point_label(point), seconds, len(records), len(order) - len(records))

    def finish_call(call: Hashable, result: Any, seconds: float) -> None:
        if group is None:
            finish(call, result, seconds)
            return
        if not isinstance(result, list) or len(result) != len(call):
            raise SweepError(f"sweep {name!r}: points {call!r}: a grouped compute must return a list of "
                             f"{len(call)} records, got {type(result).__name__} of length "
                             f"{len(result) if isinstance(result, list) else '-'}")
        for point, record in zip(call, result):
            finish(point, record, seconds / len(call))

    def refresh(point: Hashable) -> bool:
        """Whether another run sharing the cache or ledger (one walking the points in another order) finished it."""
        shared = stored(point)
        if shared is not None:
            records[point] = shared
            bar.update(1)
        return shared is not None

    bar = progress_bar(total=len(order), initial=len(records), desc=name, unit="point", disable=not progress)
    try:
        calls = todo if group is None else _groups(todo, group, group_size)
        if executor is None:
            for call in calls:
                if budget.spent():
                    break
                if group is None:
                    if refresh(call):
                        continue
                else:
                    call = tuple(point for point in call if not refresh(point))
                    if not call:
                        continue
                try:
                    result, seconds = _evaluate(compute, call, checkpoint_dir(call), budget)
                except Exception as err:
                    raise fail(call, err) from err
                if result is not None:
                    finish_call(call, result, seconds)
        else:
            _collect(executor, calls, compute, checkpoint_dir, budget, finish_call, fail)
    finally:
        bar.close()
    result = SweepResult(
        name=name, done={p: records[p] for p in order if p in records},
        pending=[p for p in order if p not in records], computed=[p for p in order if p in computed],
        seconds={p: computed[p] for p in order if p in computed}, wall_s=time.perf_counter() - start, keys=keys)
    log_sweep(name, len(result.done), len(result.pending), len(result.computed), result.wall_s)
    return result


def _groups(points: list[Hashable], group: Callable[[Any], Hashable], size: int) -> list[tuple[Hashable, ...]]:
    """``points`` as tuples of equal ``group(point)``, at most ``size`` each, groups in order of first appearance."""
    grouped: dict[Hashable, list[Hashable]] = {}
    for point in points:
        grouped.setdefault(group(point), []).append(point)
    return [tuple(members[i:i + size]) for members in grouped.values() for i in range(0, len(members), size)]


def _collect(executor: Executor, todo: list[Hashable], compute: Callable[[Any, str | None], dict[str, Any]],
             checkpoint_dir: Callable[[Hashable], str | None], budget: Budget,
             finish: Callable[[Hashable, Any, float], None],
             fail: Callable[[Hashable, BaseException], SweepError]) -> None:
    """Submit every point of ``todo`` and hand each result to ``finish`` until done or out of time."""
    if budget.spent():
        return
    futures: dict[Future, Hashable] = {}
    waiting: set[Future] = set()
    try:
        for point in todo:
            futures[executor.submit(_evaluate, compute, point, checkpoint_dir(point), budget)] = point
        waiting = set(futures)
        index = {point: i for i, point in enumerate(todo)}
        while waiting:
            timeout = None if math.isinf(budget.deadline) else budget.remaining()
            finished, waiting = wait(waiting, timeout=timeout, return_when=FIRST_COMPLETED)
            failure = None
            # in point order, and every success cached before a failure is raised
            for future in sorted(finished, key=lambda f: index[futures[f]]):
                point = futures[future]
                try:
                    record, seconds = future.result()
                except CancelledError:
                    continue  # cancelled by someone else (a closing cluster): pending
                except Exception as err:
                    failure = failure or (point, err)
                    continue
                if record is not None:
                    finish(point, record, seconds)
            if failure is not None:
                raise fail(*failure) from failure[1]
            if budget.spent():
                break
    finally:
        for future in waiting:
            future.cancel()


# ---------------------------------------------------------------- executors

_SCHEDULER_FORMS = ('"" (in this process), "local:N" (N worker processes on this machine) '
                    'or "tcp://HOST:PORT" (a running Dask scheduler)')
#: Environment of every Dask worker process :func:`open_executor` starts: each library's
#: thread pool at one thread, since a worker runs one point at a time and N workers share
#: the machine's cores (numba's pool is the parallel ``I(tau)`` estimator's).
SINGLE_THREADED_ENV = thread_env(1)


def _parse_scheduler(name: str, value: Any) -> tuple[str, Any]:
    """``("inline", None)``, ``("local", n_workers)`` or ``("tcp", address)``."""
    if isinstance(value, str):
        if value == "":
            return "inline", None
        local = re.fullmatch(r"local:([1-9][0-9]{0,3})", value)
        if local:
            return "local", int(local.group(1))
        tcp = re.fullmatch(r"tcp://([A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\]):([0-9]{1,5})", value)
        if tcp and 1 <= int(tcp.group(2)) <= 65535:
            return "tcp", value
    raise ValueError(f"{name} must be {_SCHEDULER_FORMS}, got {value!r}")


def check_scheduler(name: str, value: Any) -> str:
    """Return ``value`` if :func:`open_executor` accepts it, else raise ``ValueError``.

    Parameters
    ----------
    name : str
        The parameter's name, quoted in the message.
    value : Any
        ``""``, ``"local:N"`` (``1 <= N <= 9999``) or ``"tcp://HOST:PORT"``.

    Returns
    -------
    str
    """
    _parse_scheduler(name, value)
    return value


@contextmanager
def open_executor(scheduler: str, *, timeout_s: float = 30.0) -> Iterator[Executor | None]:
    """The executor a chapter's ``scheduler`` parameter names, closed on exit.

    Parameters
    ----------
    scheduler : str
        - ``""``: ``None``, i.e. :func:`run_sweep` computes in this process.
        - ``"local:N"``: a Dask ``LocalCluster`` of N worker processes on this machine,
          one thread each (points share this machine's devices).
        - ``"tcp://HOST:PORT"``: the running Dask scheduler at that address and its
          workers (started with ``dask scheduler`` and ``dask worker``).

        Validated before anything starts (:func:`check_scheduler`).
    timeout_s : float
        How long to wait for the scheduler at a ``tcp://`` address.

    Yields
    ------
    concurrent.futures.Executor or None
        A Dask client's executor (``client.get_executor()``, tasks not deduplicated).

    Notes
    -----
    Workers run single-threaded (torch, BLAS and numba; :data:`SINGLE_THREADED_ENV`): the
    local cluster's processes start so, and the workers of a ``tcp://`` scheduler are
    restarted so by their nannies when the client connects. On exit the client closes,
    which cancels what still runs, and a local cluster shuts down.
    """
    kind, target = _parse_scheduler("scheduler", scheduler)
    if kind == "inline":
        yield None
        return
    # imported here: Dask is heavy, and only a distributed sweep needs it
    distributed = require("distributed")
    Client, LocalCluster = distributed.Client, distributed.LocalCluster
    Environ = require("distributed.diagnostics.plugin").Environ

    if kind == "local":
        with LocalCluster(n_workers=target, threads_per_worker=1, processes=True, env=SINGLE_THREADED_ENV,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            yield client.get_executor(pure=False)
        return
    with Client(target, timeout=timeout_s) as client:
        client.register_plugin(Environ(SINGLE_THREADED_ENV), name="seqmi-single-threaded")
        yield client.get_executor(pure=False)
