"""The queue of decisive runs: what each would still compute, at what cost, and a worker for it.

A decisive run is a chapter section at a recorded profile whose sizes were fixed in
``notebooks/profiles.yml`` before it ran (``notebooks/campaign.yml`` lists them, each with
the claims it decides and its pilot's cost per point). Its sweeps write every finished
point to the committed ledger (:mod:`seqmi.ledger`), so the run is spread over as many
sittings and machines as it needs:

- :func:`plan` lists a run's points, each stored (in the ledger or this machine's cache)
  or pending, by executing the section with :func:`seqmi.sweep.plan_points` on: the
  sweeps list their points and compute nothing;
- :func:`queue` orders the runs by claims decided per core-hour still to spend;
- :func:`work` executes them in that order for at most a given time, commits the ledger
  as points land, and records a run (:func:`seqmi.book.merge_section`) once nothing of it
  is pending.

``python -m seqmi.campaign`` (the queue) and ``python -m seqmi.campaign run --hours H
--workers N`` are the command line. This module sits above :mod:`seqmi.book`, whose
executor it drives.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from seqmi.ledger import POINTS_ROOT, Ledger, ledger_sizes
from seqmi.validate import check_float, check_int

CAMPAIGN_FILE = Path("notebooks") / "campaign.yml"
#: How often :func:`work` commits the ledger while a run computes.
COMMIT_EVERY_S = 300.0


@dataclass(frozen=True)
class DecisiveRun:
    """One pre-registered decisive run (an entry of ``notebooks/campaign.yml``).

    Attributes
    ----------
    name : str
        Short name, e.g. ``"kerg-table4"``.
    chapter : str
        The chapter id, e.g. ``"06_attention_gradients"``.
    profile : {"reference", "full"}
        The profile whose parameters (sizes fixed before the run) it executes.
    section : str
        The chapter section (cells tagged ``section-<name>``) it executes.
    decides : tuple of str
        The claim ids its recording decides.
    pilot_core_s : dict
        ``{sweep: {kind: seconds}}``: one point's cost in core-seconds, measured on the
        pilot, by sweep and the point's first element (its kind; ``"*"``: any kind); the
        estimate for a pending point until the ledger holds finished points like it.
    why : str
        Where its size comes from.
    """

    name: str
    chapter: str
    profile: str
    section: str
    decides: tuple[str, ...]
    pilot_core_s: dict[str, dict[str, float]] = field(default_factory=dict)
    why: str = ""

    def __post_init__(self) -> None:
        if self.profile not in ("reference", "full"):
            raise ValueError(f"{self.name}: a decisive run's profile is 'reference' or 'full', got {self.profile!r}")
        if not self.decides:
            raise ValueError(f"{self.name}: a decisive run names the claims it decides, got none")
        for sweep, kinds in self.pilot_core_s.items():
            for kind, seconds in kinds.items():
                check_float(f"{self.name} pilot_core_s[{sweep}][{kind}]", seconds, 0.0)


def decisive_runs(root: Path) -> list[DecisiveRun]:
    """The decisive runs ``notebooks/campaign.yml`` registers, in file order."""
    entries = yaml.safe_load((root / CAMPAIGN_FILE).read_text())["runs"]
    runs = [DecisiveRun(**{**entry, "decides": tuple(entry["decides"])}) for entry in entries]
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise ValueError(f"{CAMPAIGN_FILE}: names must be unique, got {names}")
    return runs


@dataclass(frozen=True)
class PlannedPoint:
    """One point of a decisive run: ``stored`` (ledger or cache) or pending, and its estimated cost.

    Attributes
    ----------
    sweep, label, key : str
        The sweep's name, the point's readable label, and its cache and ledger key.
    kind : str
        The point's first element (what its cost depends on most).
    stored : bool
        Whether the ledger or this machine's cache holds its record.
    core_s : float or None
        Estimated core-seconds: the mean of the ledger's finished points of the same sweep
        that differ from it in their seed (last element) alone, else the pilot's figure for
        its kind, else the ledger's mean for its kind; ``None`` when none knows.
    """

    sweep: str
    label: str
    key: str
    kind: str
    stored: bool
    core_s: float | None


@dataclass(frozen=True)
class Plan:
    """A decisive run's points and what is left of it."""

    run: DecisiveRun
    points: tuple[PlannedPoint, ...]

    @property
    def pending(self) -> list[PlannedPoint]:
        return [p for p in self.points if not p.stored]

    @property
    def core_hours(self) -> float:
        """Estimated core-hours of the pending points (those of unknown cost count 0)."""
        return sum(p.core_s or 0.0 for p in self.pending) / 3600

    @property
    def per_core_hour(self) -> float:
        """Claims decided per core-hour still to spend; ``inf`` when nothing is pending, NaN
        when a pending point's cost is unknown (such a run goes to the queue's end)."""
        if any(p.core_s is None for p in self.pending):
            return math.nan
        return len(self.run.decides) / self.core_hours if self.core_hours > 0 else float("inf")


def _kind(point: Any) -> str:
    return str(point[0]) if isinstance(point, list) and point else str(point)


def _replicate_of(point: Any) -> str:
    """What a point is apart from its last element (its seed): points alike in it cost alike."""
    return json.dumps(point[:-1]) if isinstance(point, list) and len(point) > 1 else json.dumps(point)


def _ledger_costs(root: Path, chapter: str) -> dict[tuple[str, str], float]:
    """Mean compute seconds of the ledger's finished points, by sweep and by the point without
    its seed (:func:`_replicate_of`), and by sweep and kind (keys ``(sweep, "kind:" + kind)``)."""
    seconds: dict[tuple[str, str], list[float]] = {}
    for entry in Ledger(root / POINTS_ROOT / chapter).entries():
        if entry.get("seconds") is not None:
            for group in (_replicate_of(entry["point"]), "kind:" + _kind(entry["point"])):
                seconds.setdefault((entry["sweep"], group), []).append(entry["seconds"])
    return {k: sum(v) / len(v) for k, v in seconds.items()}


def plan(root: Path, run: DecisiveRun, execute: Callable[..., None] | None = None) -> Plan:
    """List a decisive run's points by executing its section with the sweeps in plan mode.

    Parameters
    ----------
    root : Path
        The book root.
    run : DecisiveRun
    execute : callable, optional
        ``execute(notebook, executed_path, parameters, root)``, papermill's runner by
        default (:func:`seqmi.book.run_notebook`); the section's later cells may fail
        on pending points, which ends the plan, not the campaign.

    Returns
    -------
    Plan
    """
    import nbformat
    import papermill

    from seqmi import book

    notebook = book.section_notebook(root, run.chapter, run.section)
    overrides = book.check_overrides(root, run.chapter, book.profile_overrides(root, run.chapter, run.profile))
    runner = execute or book.run_notebook
    costs = _ledger_costs(root, run.chapter)
    with tempfile.TemporaryDirectory(prefix="seqmi-plan-") as tmp:
        plan_file = Path(tmp) / "plan.jsonl"
        notebook.cells.insert(0, nbformat.v4.new_code_cell(
            f"from seqmi.sweep import plan_points\nplan_points({str(plan_file)!r})"))
        parameters = {**overrides, "out_dir": str(Path(tmp) / "out")}
        try:
            runner(notebook, Path(tmp) / "planned.ipynb", parameters, root)
        except papermill.PapermillExecutionError:
            pass  # a cell after the sweeps that needs their results: the plan is written
        lines = [json.loads(line) for line in plan_file.read_text().splitlines()] if plan_file.is_file() else []
    if not lines:
        raise RuntimeError(f"{run.name}: section {run.section!r} of {run.chapter} ran no sweep: nothing to plan")
    points = []
    for line in dict((line["key"], line) for line in lines).values():
        kind = _kind(line["point"])
        # the same point's other seeds, else the pilot's figure for its kind, else the ledger's for its kind
        pilot = run.pilot_core_s.get(line["sweep"], {})
        estimate = costs.get((line["sweep"], _replicate_of(line["point"])),
                             pilot.get(kind, pilot.get("*", costs.get((line["sweep"], "kind:" + kind)))))
        points.append(PlannedPoint(sweep=line["sweep"], label=line["label"], key=line["key"], kind=kind,
                                   stored=line["stored"], core_s=estimate))
    return Plan(run=run, points=tuple(points))


def queue(plans: Sequence[Plan]) -> list[Plan]:
    """The plans with points pending, most claims decided per core-hour first (file order on ties)."""
    pending = [p for p in plans if p.pending]
    return sorted(pending, key=lambda p: (math.isnan(p.per_core_hour), -p.per_core_hour))


def recorded_on(root: Path, run: DecisiveRun) -> str | None:
    """The date the run's section was merged into its profile's recording, ``None`` if it never was."""
    path = root / "results" / run.profile / run.chapter / "provenance.json"
    sections = json.loads(path.read_text()).get("sections", {}) if path.is_file() else {}
    return str(sections[run.section].get("date", "undated")) if run.section in sections else None


def describe(plans: Sequence[Plan], root: Path, points: bool = True) -> str:
    """The campaign as text: the queue with its costs, each run's pending points, the ledger's size."""
    lines = []
    ordered = queue(plans)
    done = [p for p in plans if not p.pending]
    for rank, p in enumerate(ordered, 1):
        unknown = sum(q.core_s is None for q in p.pending)
        lines.append(f"{rank}. {p.run.name} ({p.run.chapter}, section {p.run.section}, {p.run.profile}): "
                     f"{len(p.pending)} of {len(p.points)} points pending, about {p.core_hours:.1f} core-hours"
                     + (f" (+{unknown} of unknown cost)" if unknown else "")
                     + f"; decides {len(p.run.decides)} claims, "
                     + (f"{p.per_core_hour:.2f} per core-hour" if not math.isnan(p.per_core_hour)
                        else "cost unknown: last in the queue"))
        if points:
            for q in p.pending:
                cost = f"{q.core_s / 60:.1f} core-min" if q.core_s is not None else "cost unknown"
                lines.append(f"     {q.sweep} {q.label}: {cost}")
    for p in done:
        recorded = recorded_on(root, p.run)
        lines.append(f"-  {p.run.name}: all {len(p.points)} points stored; "
                     + (f"recorded ({recorded})" if recorded else
                        f"record it (python -m seqmi.book record --profile {p.run.profile} "
                        f"--only {p.run.chapter[:2]} --section {p.run.section})"))
    lines.append("ledger: " + ("; ".join(f"{s.chapter} {s.points} points, {s.bytes / 1024:.0f} KiB, "
                                        f"{s.seconds / 3600:.1f} core-hours recorded"
                                        for s in ledger_sizes(root)) or "empty"))
    return "\n".join(lines)


# ---------------------------------------------------------------- working through the queue


def commit_ledger(root: Path, run_name: str) -> bool:
    """Commit the ledger's new and changed points (and only them), the message counting them and
    naming the decisive run; whether a commit was made.

    Another git command holding the index (a commit made by hand meanwhile) is waited for.
    """
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", str(POINTS_ROOT)],
                            cwd=root, capture_output=True, text=True, check=True).stdout
    points = len(status.splitlines())
    if not points:
        return False
    message = f"Ledger: {points} finished point(s) of the decisive run {run_name}"
    for _ in range(10):
        add = subprocess.run(["git", "add", "--", str(POINTS_ROOT)], cwd=root, capture_output=True, text=True)
        commit = subprocess.run(["git", "commit", "-q", "-m", message, "--", str(POINTS_ROOT)], cwd=root,
                                capture_output=True, text=True)
        if add.returncode == 0 and commit.returncode == 0:
            return True
        time.sleep(5)
    raise RuntimeError(f"could not commit {POINTS_ROOT}: {commit.stderr.strip()}")


def _committer(root: Path, run_name: str, stop: threading.Event, every_s: float) -> threading.Thread:
    def loop() -> None:
        while not stop.wait(every_s):
            commit_ledger(root, run_name)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


def execute_for(root: Path, run: DecisiveRun, seconds: float, workers: int) -> int:
    """Execute ``run``'s section in a child process for at most ``seconds``; its exit status.

    The child is killed with its kernel and workers at the deadline (status ``-9``): its
    finished points are in the ledger, its in-flight ones checkpointed in this machine's
    cache.
    """
    command = [sys.executable, "-m", "seqmi.book", "--root", str(root), "execute", "--profile", run.profile,
               "--only", run.chapter, "--section", run.section]
    if workers > 1:
        command += ["-r", "scheduler", f"local:{workers}"]
    child = subprocess.Popen(command, cwd=root, start_new_session=True)
    try:
        return child.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        return -9


def work(root: Path, hours: float, workers: int = 1, commit_every_s: float = COMMIT_EVERY_S,
         plans: Sequence[Plan] | None = None) -> list[str]:
    """Work through the queue for at most ``hours``, committing the ledger as points land.

    Each run in :func:`queue` order is executed until done or out of time; a run left
    with nothing pending is recorded (:func:`seqmi.book.merge_section`) and its
    recording committed beside the ledger.

    Parameters
    ----------
    root : Path
        The book root (a git work tree).
    hours : float
        Wall-clock limit, > 0.
    workers : int
        Worker processes of each section (its ``scheduler``, ``local:N``); 1 runs in-process.
    commit_every_s : float
        How often the ledger is committed while a run computes.
    plans : sequence of Plan, optional
        The plans to work through (default: every registered run, planned now).

    Returns
    -------
    list of str
        One line per run worked on: what it finished and whether it was recorded.
    """
    check_float("hours", hours, 1e-6)
    check_int("workers", workers, 1, 64)
    deadline = time.time() + hours * 3600
    plans = list(plans) if plans is not None else [plan(root, r) for r in decisive_runs(root)]
    report = []
    for p in queue(plans):
        pending, status = len(p.pending), 0
        # a section with a time budget stops with points pending and exits cleanly: run it
        # again while it finishes points and time is left
        while pending and deadline - time.time() > 0:
            stop = threading.Event()
            thread = _committer(root, p.run.name, stop, commit_every_s)
            status = execute_for(root, p.run, deadline - time.time(), workers)
            stop.set()
            thread.join()
            commit_ledger(root, p.run.name)
            left = len(plan(root, p.run).pending)
            if status != 0 or left == pending:
                pending = left
                break
            pending = left
        line = (f"{p.run.name}: {len(p.pending) - pending} points finished, {pending} pending "
                f"(exit status {status})")
        if status == 0 and not pending:
            _record(root, p.run)
            line += "; recorded"
        report.append(line)
        print(line, flush=True)
        if deadline - time.time() <= 0:
            break
    return report


def _record(root: Path, run: DecisiveRun) -> None:
    """Merge the run's executed section into its profile's recording and commit it with the ledger."""
    from seqmi import book

    executed = book.build_dir(root, run.profile) / "sections" / run.chapter / run.section
    book.merge_section(root, run.profile, run.chapter, run.section, executed)
    target = Path("results") / run.profile / run.chapter
    subprocess.run(["git", "add", "--", str(target), str(POINTS_ROOT)], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", f"Decisive run {run.name} recorded ({run.profile}, "
                    f"section {run.section}): {', '.join(run.decides)}", "--", str(target), str(POINTS_ROOT)],
                   cwd=root, check=True)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m seqmi.campaign``; returns the exit status."""
    from seqmi import book

    parser = argparse.ArgumentParser(prog="python -m seqmi.campaign", description=__doc__.split("\n\n")[0])
    parser.add_argument("action", nargs="?", choices=("list", "run"), default="list",
                        help="list: the queue with its pending points and costs; run: work through it")
    parser.add_argument("--root", type=Path, default=None, help="book root (default: found from cwd)")
    parser.add_argument("--hours", type=float, default=None, help="with run: wall-clock limit")
    parser.add_argument("--workers", type=int, default=1, help="with run: worker processes per section")
    parser.add_argument("--brief", action="store_true", help="with list: the runs only, not their points")
    args = parser.parse_args(argv)
    root = book.find_root(args.root)
    if args.action == "list":
        print(describe([plan(root, run) for run in decisive_runs(root)], root, points=not args.brief))
        return 0
    if args.hours is None:
        print("error: campaign run needs --hours H (its wall-clock limit)", file=sys.stderr)
        return 1
    work(root, args.hours, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
