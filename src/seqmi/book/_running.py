"""Executing chapters with papermill: whole chapters, or one section, and their provenance.

``execute`` runs each chapter into ``_build/<profile>/`` (see :mod:`seqmi.book`), passing
the profile's parameters, the output folder and the profile itself; while it runs, each
finished sweep point is printed and noted in a provisional provenance, which the final
one replaces. Re-exported by :mod:`seqmi.book`, where they are documented.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from seqmi.book._chapters import (BookError, build_dir, check_overrides, profile_overrides, read_chapter,
                                  section_notebook, select)
from seqmi.ledger import run_commit, source_commit
from seqmi.passes import pending_points, point_lines, record_pass, sweep_log
from seqmi.report import PROVENANCE_FILE, ROOT_ENV
from seqmi.sections import section_names

# a pass's sweep log (seqmi.passes), in the chapter's output folder
SWEEP_LOG = "sweeps.jsonl"
# what the executor passes every chapter itself: where it writes and the profile it runs at
SET_BY_EXECUTOR = ("out_dir", "profile")


def _kernel_manager_class(sockets: str) -> type:
    """A kernel manager that talks to its kernel over local IPC sockets in the folder ``sockets``.

    On TCP (the default) every kernel warns, at start, that its ports are unencrypted: one
    multi-line warning per chapter of a build. The kernel of a chapter never leaves this
    machine, so IPC sockets do the same work without the ports and the warning.
    """
    from jupyter_client.manager import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.transport = "ipc"
            self.ip = os.path.join(sockets, "kernel")

    return IPCKernelManager


def run_notebook(notebook: Any, executed: Path, parameters: dict[str, Any], root: Path) -> None:
    """Execute ``notebook`` with papermill into ``executed``, from ``root``, on a local IPC kernel."""
    import papermill

    with tempfile.TemporaryDirectory(prefix="seqmi-kernel-") as sockets:
        papermill.execute_notebook(notebook, str(executed), parameters=parameters, cwd=str(root),
                                   kernel_name="python3", progress_bar=False,
                                   kernel_manager_class=_kernel_manager_class(sockets))


def execute(root: Path, profile: str, only: list[str] | None = None,
            extra: dict[str, Any] | None = None, out: Path | None = None) -> dict[str, dict[str, Any]]:
    """Execute chapters with papermill; return (and write) the manifest.

    A failing chapter does not stop the others: its status is ``"failed"`` with the
    error, and :func:`seqmi.book.build` refuses to render a book with a failed chapter.

    Parameters
    ----------
    root : Path
        The book root.
    profile : {"quick", "reference", "full"}
        Parameter profile, also passed to every chapter as its ``profile`` parameter.
    only : list of str, optional
        Chapter ids or ``NN`` prefixes; all chapters when empty.
    extra : dict, optional
        Parameter overrides applied to every selected chapter on top of the profile
        (e.g. ``{"device": "cpu"}``).
    out : Path, optional
        Output folder; ``_build/<profile>`` by default.
    """
    import papermill

    selected = select(root, only)
    plans = {}
    for chapter in selected:  # validate every chapter before executing any
        if extra and "out_dir" in extra:
            raise BookError("out_dir is set by execute (under the output folder); it cannot be overridden")
        if extra and "profile" in extra:
            raise BookError("profile is set by execute (its profile, --profile on the command line); "
                            "it cannot be overridden")
        plans[chapter] = {**check_overrides(root, chapter, profile_overrides(root, chapter, profile)),
                          **check_overrides(root, chapter, extra or {}, "-p/-y")}
    out = out or build_dir(root, profile)
    manifest_path = out / "manifest.json"
    for chapter, overrides in plans.items():
        artifacts = out / "artifacts" / chapter
        shutil.rmtree(artifacts, ignore_errors=True)
        artifacts.mkdir(parents=True)
        executed = out / "executed" / f"{chapter}.ipynb"
        executed.parent.mkdir(parents=True, exist_ok=True)
        # relative to the root (papermill's cwd) when possible: the rendered book shows it
        shown = artifacts.relative_to(root) if artifacts.is_relative_to(root) else artifacts
        parameters = {**overrides, "out_dir": str(shown), "profile": profile}
        print(f"[{profile}] executing {chapter} ...", flush=True)
        # the code that runs is the tree as the chapter starts (edits during a long run are not in it)
        commit = source_commit(root)
        notebook = read_chapter(root, chapter)  # as it runs: its sections go into the provenance
        start = time.perf_counter()
        status, error = "ok", None
        os.environ[ROOT_ENV] = str(root)
        try:
            with sweep_log(artifacts / SWEEP_LOG), _progress(artifacts, _provenance(commit, profile, parameters, 0.0),
                                                             f"[{profile}] {chapter}"), run_commit(commit):
                run_notebook(notebook, executed, parameters, root)
        except papermill.PapermillExecutionError as err:
            status, error = "failed", f"{err.ename}: {err.evalue}"
        wall = time.perf_counter() - start
        print(f"[{profile}] {chapter}: {status} in {wall:.1f} s" + (f" ({error})" if error else ""), flush=True)
        provenance = _provenance(commit, profile, parameters, wall)
        provenance["passes"] = record_pass(out / "passes" / f"{chapter}.json", provenance["parameters"],
                                           wall_s=wall, commit=commit, status=status,
                                           pending=pending_points(artifacts / SWEEP_LOG))
        # the sections whose cells ran: a parameter read only by others never reached its numbers
        provenance["sections_run"] = section_names(notebook.cells)
        (artifacts / PROVENANCE_FILE).write_text(json.dumps(provenance, indent=2) + "\n")
        # read just before writing: two executions into one folder (two chapters run side
        # by side) each add their own entry
        manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
        manifest[chapter] = {"status": status, "error": error, "wall_s": round(wall, 2)}
        manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    return {c: manifest[c] for c in selected}


PROGRESS_POLL_S = 1.0  # how often a running chapter's sweep log is read for finished points


@contextmanager
def _progress(folder: Path, provisional: dict[str, Any], tag: str) -> Iterator[None]:
    """While a chapter runs: one printed line per finished sweep point, and a provenance that says so.

    The chapter's sweeps log each finished point to ``folder``'s sweep log
    (:func:`seqmi.passes.log_point`); this prints it as it lands (label, time, points done
    and pending), and keeps ``folder/provenance.json`` as ``provisional`` with ``"status":
    "running"`` and the points finished so far. A run that is killed leaves that file: it
    says which points finished. One that ends has it replaced by its final provenance.
    """
    finished: list[str] = []
    stop = threading.Event()
    start = time.perf_counter()

    def write() -> None:
        (folder / PROVENANCE_FILE).write_text(json.dumps(
            {**provisional, "wall_s": round(time.perf_counter() - start, 2), "status": "running",
             "points_finished": finished}, indent=2) + "\n")

    def watch() -> None:
        position = 0
        while True:
            last = stop.wait(PROGRESS_POLL_S)
            lines, position = point_lines(folder / SWEEP_LOG, position)
            for line in lines:
                print(f"{tag} {line['sweep']}: {line['point']} in {line['seconds']:,.1f} s "
                      f"({line['done']} done, {line['pending']} pending)", flush=True)
                finished.append(f"{line['sweep']}/{line['point']}")
            if lines:
                write()
            if last:
                return

    write()
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        stop.set()
        watcher.join()


def _provenance(commit: str, profile: str, parameters: dict[str, Any], wall: float) -> dict[str, Any]:
    return {
        "commit": commit,
        "profile": profile,
        # the profile has its own entry, and out_dir is where this record lies
        "parameters": {k: v for k, v in parameters.items() if k not in SET_BY_EXECUTOR},
        "device": _device_name(parameters.get("device", "auto")),
        "torch": _torch_version(),
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores",
        "wall_s": round(wall, 2),
        "date": time.strftime("%Y-%m-%d"),
    }


def _torch_version() -> str:
    try:
        import torch
    except ImportError:
        return "not installed"
    return torch.__version__


def _device_name(requested: str) -> str:
    try:
        import torch
    except ImportError:
        return "cpu"
    if requested != "cpu" and torch.cuda.is_available():
        return f"cuda ({torch.cuda.get_device_name(0)})"
    return "cpu"


def execute_section(root: Path, profile: str, chapter: str, section: str,
                    extra: dict[str, Any] | None = None, out: Path | None = None) -> Path:
    """Execute one section of a chapter at a profile, without touching any recording.

    The section (:func:`seqmi.book.section_notebook`) runs with the profile's parameters and
    ``extra`` on top (checked as command-line overrides are), into
    ``<build>/sections/<chapter>/<section>/``: the executed notebook, its figures and
    ``section.json``, and ``provenance.json`` (commit, parameters, device, wall time). On
    its own this fills the chapter's caches (``cache_dir``), e.g. the trained models of a
    section run on a GPU machine whose caches travel back to the machine that records the
    chapter.

    Returns
    -------
    Path
        The folder the section wrote to (its parameters and wall time are in its
        ``provenance.json``).
    """
    notebook = section_notebook(root, chapter, section)
    overrides = check_overrides(root, chapter, profile_overrides(root, chapter, profile))
    if extra:
        overrides.update(check_overrides(root, chapter, extra, source="command line"))
    base = out or build_dir(root, profile)
    out = base / "sections" / chapter / section
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    parameters = {**overrides, "out_dir": str(out), "profile": profile}
    commit = source_commit(root)
    os.environ[ROOT_ENV] = str(root)
    print(f"[{profile}] executing {chapter}, section {section} ...", flush=True)
    start = time.perf_counter()
    with sweep_log(out / SWEEP_LOG), _progress(out, _provenance(commit, profile, parameters, 0.0),
                                               f"[{profile}] {chapter}/{section}"), run_commit(commit):
        run_notebook(notebook, out / "executed.ipynb", parameters, root)
    wall = time.perf_counter() - start
    provenance = _provenance(commit, profile, parameters, wall)
    provenance["passes"] = record_pass(base / "passes" / f"{chapter}.{section}.json", provenance["parameters"],
                                       wall_s=wall, commit=commit, status="ok",
                                       pending=pending_points(out / SWEEP_LOG))
    provenance["sections_run"] = [section]
    (out / PROVENANCE_FILE).write_text(json.dumps(provenance, indent=2) + "\n")
    return out
