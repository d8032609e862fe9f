"""Wall time as spent: a chapter run that resumes over several passes, and its total.

A chapter whose sweeps outlast one sitting (a reference or full run on a small machine)
is executed again and again with the same parameters and cache, each pass finishing
some points and reading the others back. The provenance of the last pass alone would
say the run took the few minutes that pass took. So every pass is written down:

- inside the chapter, :func:`log_sweep` (called by :func:`seqmi.sweep.run_sweep`) adds
  one line per sweep to the file that ``$SEQMI_SWEEP_LOG`` names: its points done and
  pending;
- after the pass, :func:`record_pass` appends the pass (date, commit, wall time, points
  pending) to the chapter's ledger, or starts the ledger afresh when the pass begins a new
  run: other parameters than the ledger's, or a previous pass that left nothing pending;
- the provenance carries the ledger's passes, and :func:`total_s` and :func:`describe`
  read them (a recorded section adds its own passes to the whole run's).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: The environment variable naming the file a chapter's sweeps log to (set by the executor).
SWEEP_LOG_ENV = "SEQMI_SWEEP_LOG"


def log_sweep(name: str, done: int, pending: int, computed: int, wall_s: float) -> None:
    """Append one sweep's outcome to ``$SEQMI_SWEEP_LOG`` when it is set (else do nothing).

    Parameters
    ----------
    name : str
        The sweep's name (its cache keys' prefix).
    done, pending, computed : int
        Points finished (cached ones included), still pending, and computed in this call.
    wall_s : float
        Wall time of the call.
    """
    target = os.environ.get(SWEEP_LOG_ENV)
    if not target:
        return
    line = {"sweep": name, "done": done, "pending": pending, "computed": computed, "wall_s": round(wall_s, 2)}
    with open(target, "a") as f:
        f.write(json.dumps(line) + "\n")


def log_point(name: str, point: str, seconds: float, done: int, pending: int) -> None:
    """Append one finished point of a sweep to ``$SEQMI_SWEEP_LOG`` when it is set (else do nothing).

    The executor prints these lines as they come (:func:`seqmi.book.run_notebook`), and a
    pass cut short leaves them: its last line per sweep says what was pending then
    (:func:`pending_points`).

    Parameters
    ----------
    name : str
        The sweep's name.
    point : str
        The point's label (its cache key's readable part).
    seconds : float
        The point's own wall time.
    done, pending : int
        Points of the sweep finished (cached ones included) and still pending, this one done.
    """
    target = os.environ.get(SWEEP_LOG_ENV)
    if not target:
        return
    line = {"sweep": name, "point": point, "seconds": round(seconds, 2), "done": done, "pending": pending}
    with open(target, "a") as f:
        f.write(json.dumps(line) + "\n")


def point_lines(log: Path, start: int = 0) -> tuple[list[dict[str, Any]], int]:
    """The finished-point lines of a sweep log from byte ``start`` on, and where the read stopped.

    Only whole lines count: a line still being written is read by the next call.
    """
    if not log.is_file():
        return [], start
    with open(log, "rb") as f:
        f.seek(start)
        data = f.read()
    whole = data[: data.rfind(b"\n") + 1]
    lines = [json.loads(line) for line in whole.decode().splitlines() if line.strip()]
    return [line for line in lines if "point" in line], start + len(whole)


@contextmanager
def sweep_log(log: Path) -> Iterator[Path]:
    """A context in which the chapters started from this process log their sweeps to ``log``.

    ``$SEQMI_SWEEP_LOG`` names the file while the context lasts (kernels started inside it
    inherit it); on leaving, the variable is as it was before.
    """
    before = os.environ.get(SWEEP_LOG_ENV)
    os.environ[SWEEP_LOG_ENV] = str(log.absolute())
    try:
        yield log
    finally:
        if before is None:
            del os.environ[SWEEP_LOG_ENV]
        else:
            os.environ[SWEEP_LOG_ENV] = before


def pending_points(log: Path) -> int | None:
    """Points left pending by a pass, from its sweep log: the last line of each sweep.

    That is the sweep's summary when it returned, or, for a pass cut short, its last
    finished point (:func:`log_point`). ``None`` when the pass ran no sweep (no log), i.e.
    nothing it could resume.
    """
    if not log.is_file():
        return None
    last: dict[str, int] = {}
    for line in log.read_text().splitlines():
        if line.strip():
            entry = json.loads(line)
            last[entry["sweep"]] = int(entry["pending"])
    return sum(last.values())


def record_pass(ledger: Path, parameters: dict[str, Any], *, wall_s: float, commit: str, status: str,
                pending: int | None) -> list[dict[str, Any]]:
    """Add one pass of a chapter run to its ledger (a JSON file) and return the run's passes.

    The pass continues the ledger's run when the ledger holds the same ``parameters`` and
    its last pass left points pending (or failed); otherwise it begins a new run, and
    the ledger holds this pass alone.

    Parameters
    ----------
    ledger : Path
        The chapter's ledger file (created with its folder if absent).
    parameters : dict
        The parameters of the pass (JSON-serialisable), the run's identity.
    wall_s : float
        Wall time of the pass.
    commit : str
        The commit the pass ran.
    status : str
        ``"ok"`` or ``"failed"``.
    pending : int or None
        Points the pass left pending (:func:`pending_points`).

    Returns
    -------
    list of dict
        The run's passes, oldest first: ``date``, ``commit``, ``wall_s``, ``status``,
        ``pending``.
    """
    entry = {"date": time.strftime("%Y-%m-%d %H:%M"), "commit": commit, "wall_s": round(wall_s, 2),
             "status": status, "pending": pending}
    saved = json.loads(ledger.read_text()) if ledger.is_file() else {}
    passes = saved.get("passes", [])
    unfinished = bool(passes) and (passes[-1]["status"] != "ok" or bool(passes[-1]["pending"]))
    same = json.loads(json.dumps(parameters)) == saved.get("parameters")
    passes = [*passes, entry] if same and unfinished else [entry]
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text(json.dumps({"parameters": parameters, "passes": passes}, indent=2) + "\n")
    return passes


def _own_passes(provenance: dict[str, Any]) -> list[dict[str, Any]]:
    """A provenance's passes; one made before passes were recorded counts as its one pass."""
    return provenance.get("passes") or [{"wall_s": provenance.get("wall_s")}]


def total_s(provenance: dict[str, Any]) -> tuple[float, bool]:
    """Wall seconds of a recorded run over all its passes and its recorded sections.

    Returns
    -------
    (float, bool)
        The sum of every timed pass, and whether every pass was timed (``False``: the sum
        is a lower bound, some pass having ``wall_s`` ``None``).
    """
    passes = [*_own_passes(provenance)]
    for section in (provenance.get("sections") or {}).values():
        passes += _own_passes(section)
    timed = [p["wall_s"] for p in passes if p.get("wall_s") is not None]
    return float(sum(timed)), len(timed) == len(passes)


def duration(seconds: float) -> str:
    """``"42 s"``, ``"25 min"`` or ``"2.9 h"``: wall time as a run box shows it."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def describe(provenance: dict[str, Any]) -> str:
    """The total wall time of a recorded run, and over how many passes, in words.

    For example ``"2.9 h in 4 passes"``; the passes of sections recorded on top count
    too, and an untimed pass makes the total ``"at least"``. Each pass's own time stays
    in the provenance (``passes``, ``sections``).
    """
    total, complete = total_s(provenance)
    count = len(_own_passes(provenance)) + sum(len(_own_passes(section))
                                               for section in (provenance.get("sections") or {}).values())
    head = ("" if complete else "at least ") + duration(total)
    return f"{head} in {count} passes" if count > 1 else head
