"""The committed ledger of finished sweep points: ``results/points/<chapter>/<key>.json``.

A decisive run (the reference or full profile of a trained chapter) takes more hours
than one machine holds it for. Its sweep cache (``cache_dir``, under ``_build/``) holds
checkpoints and lives on one machine; the ledger holds only what a finished point's
record says (the numbers the rules read, never weights or samples) and is committed to
the repository as points land. :func:`seqmi.sweep.run_sweep` reads a point from the
ledger before its cache and before computing it, and writes every point it finishes
there: a fresh clone on any machine, CPU or GPU, continues a run from whatever an
earlier machine finished.

An entry is the point's record and where it came from::

    {"key": ..., "sweep": ..., "point": ..., "spec": ...,   # what was computed
     "record": {...},                                      # what the rules read
     "seconds": 812.4, "commit": "...", "machine": "...",  # how, where, when
     "devices": ["cpu"], "written": "2026-11-28 07:10"}

``key`` is the sweep cache's (:func:`seqmi.sweep.sweep_key`): the same settings give the
same key on every machine, and any change of them a new one. This module imports neither
torch nor git's Python bindings (it runs ``git`` for the commit, as the executor does).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Where a chapter's points go, relative to the book's root (the profiles name it).
POINTS_ROOT = Path("results") / "points"
#: Set by an executor that runs a copy of the tree without its git history (a cluster
#: node): the commit the copy was made at.
COMMIT_ENV = "SEQMI_COMMIT"


def source_commit(root: Path) -> str:
    """The commit ``root``'s sources are at, ``+dirty`` when ``src/`` or ``notebooks/`` differ from it.

    ``$SEQMI_COMMIT`` when set (a copy of the tree without its history), ``"unknown"``
    outside a git work tree.
    """
    if os.environ.get(COMMIT_ENV):
        return os.environ[COMMIT_ENV]
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "src", "notebooks"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


@contextmanager
def run_commit(commit: str) -> Iterator[None]:
    """Within the block, :func:`source_commit` (and so every ledger opened, in this process
    or a kernel started here) answers ``commit``: the commit a run started at.

    The executor of a chapter wraps its kernel so: the tree may be edited while a long run
    computes, and its points belong to the code it started with.
    """
    before = os.environ.get(COMMIT_ENV)
    os.environ[COMMIT_ENV] = commit
    try:
        yield
    finally:
        if before is None:
            del os.environ[COMMIT_ENV]
        else:
            os.environ[COMMIT_ENV] = before


def write_json(path: Path, value: Any) -> None:
    """Write ``value`` as JSON to ``path`` atomically: a reader sees all of it or nothing."""
    text = json.dumps(value) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _devices(record: Any) -> list[str]:
    """Every value of a ``"device"`` key anywhere in ``record``, sorted, each once."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k == "device" and isinstance(v, str):
                    found.add(v)
                else:
                    walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(record)
    return sorted(found)


@dataclass(frozen=True)
class Ledger:
    """One chapter's folder of finished points.

    Parameters
    ----------
    folder : Path
        ``results/points/<chapter>`` (created when the first point is written).
    commit : str
        The commit of the code that computes the points, written into every entry:
        :func:`source_commit` of the working directory when the ledger is opened (the
        executor of a chapter sets ``$SEQMI_COMMIT`` to the commit it started at, so that
        an edit of the tree during a long run is not credited with its points).
    """

    folder: Path
    commit: str = field(default_factory=lambda: source_commit(Path.cwd()))

    def __post_init__(self) -> None:
        if str(self.folder) in ("", "."):
            raise ValueError("a ledger needs a folder (results/points/<chapter>), got an empty path")

    def path(self, key: str) -> Path:
        """The entry of ``key``."""
        return self.folder / f"{key}.json"

    def read(self, key: str) -> dict[str, Any] | None:
        """The record of ``key`` (what the sweep's ``compute`` returned), ``None`` if absent or unreadable."""
        entry = read_entry(self.path(key))
        return entry["record"] if entry is not None else None

    def write(self, key: str, *, sweep: str, point: Any, spec: Any, record: dict[str, Any],
              seconds: float | None) -> Path:
        """Write the entry of a finished point atomically; returns its path.

        Parameters
        ----------
        key : str
            The point's sweep key.
        sweep : str
            The sweep's name.
        point, spec : JSON-native
            The point and the sweep's settings, as the key hashed them
            (:func:`seqmi.sweep.describe`).
        record : dict
            The point's record.
        seconds : float or None
            The point's own compute time; ``None`` for a point read from a cache written
            before the ledger existed (its time was not kept).
        """
        entry = {"key": key, "sweep": sweep, "point": point, "spec": spec, "record": record,
                 "seconds": None if seconds is None else round(seconds, 2),
                 "commit": self.commit,
                 "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores",
                 "devices": _devices(record), "written": time.strftime("%Y-%m-%d %H:%M")}
        path = self.path(key)
        write_json(path, entry)
        return path

    def entries(self) -> Iterator[dict[str, Any]]:
        """Every readable entry, in key order."""
        for path in sorted(self.folder.glob("*.json")):
            entry = read_entry(path)
            if entry is not None:
                yield entry


def read_entry(path: Path) -> dict[str, Any] | None:
    """The ledger entry at ``path``, ``None`` if absent, unreadable, or not an entry."""
    try:
        entry = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("record"), dict) or "key" not in entry:
        return None
    return entry


@dataclass(frozen=True)
class LedgerSize:
    """How much one chapter's ledger holds.

    Attributes
    ----------
    chapter : str
    points : int
        Entries.
    bytes : int
        Their size on disk.
    seconds : float
        The compute they record (entries whose time was kept).
    sweeps : dict
        ``{sweep: entries}``.
    """

    chapter: str
    points: int
    bytes: int
    seconds: float
    sweeps: dict[str, int]


def ledger_sizes(root: Path) -> list[LedgerSize]:
    """The size of every chapter's ledger under ``root/results/points``, in chapter order."""
    sizes = []
    base = root / POINTS_ROOT
    for folder in sorted(p for p in base.glob("*") if p.is_dir()):
        entries = list(Ledger(folder).entries())
        sweeps: dict[str, int] = {}
        for entry in entries:
            sweeps[entry["sweep"]] = sweeps.get(entry["sweep"], 0) + 1
        sizes.append(LedgerSize(chapter=folder.name, points=len(entries),
                                bytes=sum(p.stat().st_size for p in folder.glob("*.json")),
                                seconds=sum(e["seconds"] or 0.0 for e in entries), sweeps=sweeps))
    return sizes
