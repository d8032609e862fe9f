"""Execute the book's chapters with papermill and render them with Jupyter Book.

Usage (from the book root, the folder holding ``_toc.yml``)::

    python -m seqmi.book list
    python -m seqmi.book execute --profile quick|reference|full [--only ID ...] [-p NAME VALUE ...] [-y YAML]
    python -m seqmi.book build   --profile quick|reference|full
    python -m seqmi.book record  --profile reference|full [--only ID ...]
    python -m seqmi.book record  --profile reference|full --only ID --section NAME
    python -m seqmi.book reclaim --profile reference|full [--only ID ...]
    python -m seqmi.book mathjax [--tarball PATH]

Chapters are the ``notebooks/*`` entries of ``_toc.yml``, jupytext MyST markdown files.
``execute`` runs each one with papermill into ``_build/<profile>/``::

    executed/<id>.ipynb        the executed notebook
    artifacts/<id>/            the chapter's out_dir: results.json, figures, provenance.json
    manifest.json              status and wall time of every executed chapter
    passes/<id>.json           the passes of a run resumed over several executions
                               (seqmi.passes): its provenance gives each and the total

``build`` stages a copy of the book in which every chapter is its executed notebook,
writes the claims scoreboard's table (:mod:`seqmi.claims.scoreboard`), turns Jupyter
Book's own execution off, and renders it with ``--all -W -n
--keep-going``: a warning, a broken reference, or a chapter that failed to execute
fails the build. Jupyter Book's execution cache is never used, because it keys on
code cells only and would miss a change in ``src/``.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import yaml

from seqmi.claims import UNHASHED, calibration, scoreboard
from seqmi.ledger import run_commit, source_commit
from seqmi.sections import SECTION_PREFIX, SETUP_TAG, parameters_read, section_names
from seqmi.passes import describe, duration, pending_points, point_lines, record_pass, sweep_log, total_s
from seqmi.report import PROFILE_ENV, PROVENANCE_FILE, RESULTS_FILE, ROOT_ENV, profile_parameters, profile_table

# quick: the parameters cells, for CI and laptops; reference: sized to decide the
# trained-model claims on 2 CPU cores; full: the papers' scale, on one GPU
PROFILES = ("quick", "reference", "full")
# profiles sized for CPUs (the others for one GPU, until a recorded run shows otherwise)
CPU_PROFILES = ("quick", "reference")
MATHJAX_VERSION = "3.2.2"
MATHJAX_URL = f"https://registry.npmjs.org/mathjax/-/mathjax-{MATHJAX_VERSION}.tgz"
MATHJAX_SHA1 = "c754d7b46a679d7f3fa03543d6b8bf124ddf9f6b"
MATHJAX_DIR = Path("_static") / "mathjax"
# Parameters every chapter must declare, besides its own cost knobs.
REQUIRED_PARAMETERS = ("seed", "device", "out_dir")
# Folders copied into the staged book next to the executed chapters.
STAGED_FOLDERS = ("book", "_static")
# a pass's sweep log (seqmi.passes), in the chapter's output folder
SWEEP_LOG = "sweeps.jsonl"


class BookError(RuntimeError):
    """A user-facing failure of the book pipeline (bad chapter id, failed chapter, ...)."""


@dataclass(frozen=True)
class Parameter:
    """One declared chapter parameter: ``name: type = default  # help``.

    Attributes
    ----------
    name : str
        The variable name.
    type : str
        The annotation as written (``int``, ``float``, ``str``, ``bool``, ``list``).
    default : Any
        The default (quick-profile) value.
    help : str
        The comment after the assignment.
    literal : str
        The default as written in the cell (``1e-3``), as papermill shows it.
    """

    name: str
    type: str
    default: Any
    help: str
    literal: str = ""

    @property
    def choices(self) -> tuple[str, ...] | None:
        """The allowed strings, when the comment starts by listing them (``"auto" | "cpu" | "cuda"``)."""
        match = _CHOICES.match(self.help)
        if not match or not isinstance(self.default, str):
            return None
        return tuple(re.findall(r'"([^"]*)"', match.group(0)))

    def allowed(self) -> str:
        """What a value of this parameter may be, in words."""
        if self.choices:
            return "one of " + ", ".join(f'"{c}"' for c in self.choices)
        if isinstance(self.default, list):
            kinds = sorted({type(v).__name__ for v in self.default})
            return f"a list of {' or '.join(kinds) or 'values'}"
        return {bool: "True or False", int: "an int", float: "a float (an int is accepted)",
                str: "a string"}.get(type(self.default), f"a {type(self.default).__name__}")


# a comment that starts by listing the allowed strings: "auto" | "cpu" | "cuda"
_CHOICES = re.compile(r'^"[^"]*"(\s*\|\s*"[^"]*")+')


# ---------------------------------------------------------------- chapters and parameters


def find_root(start: Path | None = None) -> Path:
    """The first folder at or above ``start`` (default: cwd) that holds ``_toc.yml``."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file():
            return folder
    raise BookError(f"no _toc.yml at or above {here}: run from the book's root folder")


def chapters(root: Path) -> list[str]:
    """Chapter ids (file stems under ``notebooks/``) in ``_toc.yml`` order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            entry = node.get("file")
            if isinstance(entry, str) and entry.startswith("notebooks/"):
                found.append(Path(entry).stem)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return found


def select(root: Path, only: list[str] | None) -> list[str]:
    """The chapters named by ``only`` (full ids or their ``NN`` prefixes), all if empty."""
    known = chapters(root)
    if not only:
        return known
    picked: list[str] = []
    for name in only:
        matches = [c for c in known if c == name or c.split("_", 1)[0] == name]
        if len(matches) != 1:
            raise BookError(f"unknown chapter {name!r}; known chapters: {', '.join(known)}")
        picked.append(matches[0])
    return picked


def chapter_path(root: Path, chapter: str) -> Path:
    """The jupytext source ``notebooks/<chapter>.md``."""
    return root / "notebooks" / f"{chapter}.md"


def read_chapter(root: Path, chapter: str) -> Any:
    """The chapter as an nbformat notebook (read with jupytext)."""
    import jupytext

    return jupytext.read(chapter_path(root, chapter))


def declared_parameters(notebook: Any) -> dict[str, Parameter]:
    """Parse the ``parameters`` cell, which must be the first code cell.

    Every statement must be an annotated assignment of a literal
    (``n_epochs: int = 3  # meaning``), so the defaults are the quick profile and
    papermill's ``--help-notebook`` can describe them.

    Raises
    ------
    BookError
        If the first code cell is not tagged ``parameters`` or holds anything else.
    """
    code_cells = [c for c in notebook.cells if c.cell_type == "code"]
    if not code_cells or "parameters" not in code_cells[0].get("metadata", {}).get("tags", []):
        raise BookError("the first code cell must be tagged 'parameters'")
    source = code_cells[0].source
    lines = source.splitlines()
    params: dict[str, Parameter] = {}
    for stmt in ast.parse(source).body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value):
            raise BookError(f"parameters cell line {stmt.lineno}: only `name: type = literal` is allowed")
        try:
            default = ast.literal_eval(stmt.value)
        except ValueError as err:
            raise BookError(f"parameters cell line {stmt.lineno}: default of {stmt.target.id!r} "
                            "is not a literal") from err
        line = lines[stmt.lineno - 1]
        help_text = line.split("#", 1)[1].strip() if "#" in line else ""
        params[stmt.target.id] = Parameter(stmt.target.id, ast.unparse(stmt.annotation), default, help_text,
                                           ast.get_source_segment(source, stmt.value) or repr(default))
    return params


def profile_overrides(root: Path, chapter: str, profile: str) -> dict[str, Any]:
    """Parameter overrides of ``chapter`` under ``profile`` (quick: none)."""
    if profile not in PROFILES:
        raise BookError(f"unknown profile {profile!r}; allowed: {', '.join(PROFILES)}")
    if profile == "quick":
        return {}
    return profile_parameters(profile_table(root), profile, chapter)


def check_overrides(root: Path, chapter: str, overrides: dict[str, Any], source: str = "profile") -> dict[str, Any]:
    """Check override names, types and choices against the chapter's declared parameters.

    papermill only warns on an unknown name and injects any type; here both are errors
    that list what the chapter allows, raised before anything runs.

    Parameters
    ----------
    root : Path
        The book root.
    chapter : str
        The chapter id.
    overrides : dict
        Parameter values to inject.
    source : str
        Where the values come from, for the message (``"profile"``, ``"-p"``).

    Returns
    -------
    dict
        ``overrides`` with ints given for float parameters converted to float.

    Raises
    ------
    BookError
        If a name is not declared, a value has the wrong type, or a string is not one
        of the choices listed in the parameter's comment.
    """
    declared = declared_parameters(read_chapter(root, chapter))
    allowed = ", ".join(f"{p.name}: {p.type}" + (f" {list(p.choices)}" if p.choices else "")
                        for p in declared.values())
    unknown = sorted(set(overrides) - set(declared))
    if unknown:
        raise BookError(f"{chapter}: {source} sets undeclared parameter(s) {unknown}; "
                        f"declared: {allowed}")
    checked = {}
    for name, value in overrides.items():
        param = declared[name]
        if isinstance(param.default, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        expected = type(param.default)
        if not isinstance(value, expected) or isinstance(value, bool) != isinstance(param.default, bool):
            raise BookError(f"{chapter}: {source} value {name}={value!r} is not of the declared "
                            f"type {param.type}; {name} must be {param.allowed()}")
        if param.choices and value not in param.choices:
            raise BookError(f"{chapter}: {source} value {name}={value!r} is not allowed; "
                            f"{name} must be {param.allowed()}")
        checked[name] = value
    return checked


def cli_overrides(pairs: list[list[str]] | None = None, raw: list[list[str]] | None = None,
                  yaml_texts: list[str] | None = None, yaml_files: list[Path] | None = None) -> dict[str, Any]:
    """Parameter values given as papermill gives them, merged in papermill's order.

    ``-f FILE`` (YAML file), then ``-y TEXT`` (YAML string), then ``-p NAME VALUE``
    (``True``/``False``/``None``, an int or a float when ``VALUE`` parses as one, else a
    string), then ``-r NAME VALUE`` (always a string); later ones win.

    Raises
    ------
    BookError
        If a YAML file is missing or a YAML text is not a mapping of names to values.
    """
    merged: dict[str, Any] = {}
    texts = []
    for path in yaml_files or []:
        if not Path(path).is_file():
            raise BookError(f"-f: no parameters file {path}")
        texts.append((f"-f {path}", Path(path).read_text()))
    texts += [(f"-y {text!r}", text) for text in yaml_texts or []]
    for origin, text in texts:
        try:
            loaded = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise BookError(f"{origin}: not valid YAML ({err})") from err
        if not isinstance(loaded, dict) or not all(isinstance(k, str) for k in loaded):
            raise BookError(f"{origin}: expected a mapping of parameter names to values, got {loaded!r}")
        merged.update(loaded)
    for name, value in pairs or []:
        merged[name] = _papermill_value(value)
    for name, value in raw or []:
        merged[name] = value
    return merged


def _papermill_value(text: str) -> Any:
    """The value papermill's ``-p`` gives ``text`` (its ``_resolve_type``)."""
    if text in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[text]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def describe_parameters(root: Path, chapter: str) -> str:
    """A chapter's parameters as papermill's ``--help-notebook`` lists them, plus what is allowed.

    One line per parameter: ``name: type (default LITERAL)  comment``, then the allowed
    values and the value each other profile sets.
    """
    table = profile_table(root)
    sizes = {name: profile_parameters(table, name, chapter) for name in table}
    lines = [f"Parameters of {chapter} ({chapter_path(root, chapter).relative_to(root)}):"]
    for p in declared_parameters(read_chapter(root, chapter)).values():
        lines.append(f"  {p.name}: {p.type} (default {p.literal})  {p.help}")
        profiles = [f"{name}: {values[p.name]!r}" for name, values in sizes.items() if p.name in values]
        lines.append(f"      allowed: {p.allowed()}" + (f"; {', '.join(profiles)}" if profiles else ""))
    return "\n".join(lines)


# ---------------------------------------------------------------- execution


def build_dir(root: Path, profile: str) -> Path:
    """``_build/<profile>`` under the book root."""
    return root / "_build" / profile


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
    error, and :func:`build` refuses to render a book with a failed chapter.

    Parameters
    ----------
    root : Path
        The book root.
    profile : {"quick", "reference", "full"}
        Parameter profile.
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
        parameters = {**overrides, "out_dir": str(shown)}
        print(f"[{profile}] executing {chapter} ...", flush=True)
        # the code that runs is the tree as the chapter starts (edits during a long run are not in it)
        commit = source_commit(root)
        notebook = read_chapter(root, chapter)  # as it runs: its sections go into the provenance
        start = time.perf_counter()
        status, error = "ok", None
        os.environ[ROOT_ENV] = str(root)
        os.environ[PROFILE_ENV] = profile
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
        "parameters": {k: v for k, v in parameters.items() if k != "out_dir"},
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


# ---------------------------------------------------------------- building


def stage(root: Path, profile: str, out: Path | None = None, only: list[str] | None = None) -> Path:
    """Copy the book into ``<out>/stage`` with executed chapters, execution off.

    With ``only``, the staged table of contents keeps the prose pages and just those
    chapters (a partial book for a quick look); otherwise every chapter must have run.
    """
    out = out or build_dir(root, profile)
    selected = select(root, only)
    manifest_path = out / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
    problems = []
    for chapter in selected:
        entry = manifest.get(chapter)
        if entry is None or not (out / "executed" / f"{chapter}.ipynb").is_file():
            problems.append(f"{chapter}: not executed (run `execute --profile {profile}` first)")
        elif entry["status"] != "ok":
            problems.append(f"{chapter}: execution failed: {entry['error']}")
        elif _has_error_output(out / "executed" / f"{chapter}.ipynb"):
            problems.append(f"{chapter}: executed notebook holds an error output")
    if problems:
        raise BookError("cannot build the book:\n  " + "\n  ".join(problems))
    staged = out / "stage"
    shutil.rmtree(staged, ignore_errors=True)
    staged.mkdir(parents=True)
    config = yaml.safe_load((root / "_config.yml").read_text())
    config.setdefault("execute", {})["execute_notebooks"] = "off"
    # the chapters' jupytext sources, offered next to the executed .ipynb (seqmi._sphinx)
    config.setdefault("sphinx", {}).setdefault("config", {})["seqmi_chapter_sources"] = str(root / "notebooks")
    (staged / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    toc = _filter_toc(yaml.safe_load((root / "_toc.yml").read_text()), set(selected))
    (staged / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False))
    for name in STAGED_FOLDERS:
        if (root / name).is_dir():
            shutil.copytree(root / name, staged / name)
    (staged / "notebooks").mkdir()
    for chapter in selected:
        _stage_chapter(out / "executed" / f"{chapter}.ipynb", staged / "notebooks" / f"{chapter}.ipynb",
                       run_box(root, chapter, profile, out))
    # the scoreboard page (book/claims.md) includes this table: every chapter's claims from its
    # largest recorded run, else from this build's run; only staged chapters can be linked
    if (staged / "book" / scoreboard.PAGE_FILE).is_file():
        scoreboard.write(root, chapters(root), out / "artifacts", staged / "book" / scoreboard.TABLE_FILE,
                         set(selected))
    # the calibration page (book/calibration.md): every statistical rule the scoreboard shows,
    # run on data made under its h0 and its h1 at the scale of the run it is read from
    if (staged / "book" / calibration.PAGE_FILE).is_file():
        calibration.write(root, chapters(root), out / "artifacts", staged / "book" / calibration.TABLE_FILE)
    return staged


def run_box(root: Path, chapter: str, profile: str, out: Path | None = None) -> str:
    """The chapter's "Run this chapter" box, as MyST Markdown, from recorded data only.

    A folded box whose title gives each profile's recorded time (``quick 115 s,
    reference ≥ 69 min, full 11 min on a GPU``); opened, it shows the command once, then one row per profile that sizes the chapter (quick, then
    those of ``notebooks/profiles.yml`` that name it, in ``PROFILES`` order): the wall
    time, device and date of a recorded run, and whether a GPU was needed. The
    profile being built reads this build's ``provenance.json`` (under ``out``); the
    others read ``results/<profile>/<chapter>/provenance.json``.

    Parameters
    ----------
    root : Path
        The book root.
    chapter : str
        The chapter id.
    profile : str
        The profile this book is built with.
    out : Path, optional
        The folder :func:`execute` wrote into; ``_build/<profile>`` by default.
    """
    out = out or build_dir(root, profile)
    table = profile_table(root)
    short = chapter.split("_", 1)[0]
    rows = ["| profile | recorded run | GPU |", "| --- | --- | --- |"]
    heads = []
    for name in [p for p in PROFILES if p == "quick" or chapter in (table.get(p) or {})]:
        folder = out / "artifacts" / chapter if name == profile else root / "results" / name / chapter
        prov_path = folder / PROVENANCE_FILE
        prov = json.loads(prov_path.read_text()) if prov_path.is_file() else None
        rows.append(f"| {name} | {_recorded(prov)} | {_needs_gpu(name, prov)} |")
        heads.append(f"{name} {_wall(prov)}")
    source = chapter_path(root, chapter).relative_to(root).as_posix()
    # Folded under a title that gives every profile's time: open, the box took a screen's
    # half above the chapter's question. The command is written once, above the table.
    return "\n".join([
        f":::{{admonition}} Run this chapter: {', '.join(heads)}",
        ":class: tip, dropdown",
        "",
        f"`python -m seqmi.book execute --profile PROFILE --only {short}`, where PROFILE is",
        "",
        *rows,
        "",
        f"Set any parameter on top of a profile with papermill's flags, e.g. `-p seed 1` "
        f"(`python -m seqmi.book list` shows them all), or run papermill itself: "
        f"`jupytext --to ipynb -o - {source} | papermill - out.ipynb -p seed 1`.",
        ":::",
    ])


def _wall(prov: dict[str, Any] | None) -> str:
    """A recorded run's total time for the box's title: ``"115 s"``, ``"≥ 69 min"``, ``"11 min on a GPU"``."""
    if prov is None:
        return "not recorded"
    total, complete = total_s(prov)
    gpu = " on a GPU" if str(prov.get("device", "cpu")).startswith("cuda") else ""
    return f"{'' if complete else '≥ '}{duration(total)}{gpu}"


def _recorded(prov: dict[str, Any] | None) -> str:
    """A recorded run in a few words: its time, where it ran (the GPU, or the CPU cores), when."""
    if prov is None:
        return "not recorded"
    device = str(prov.get("device", "?"))
    gpu = re.fullmatch(r"cuda \((.+)\)", device)
    cores = re.search(r"(\d+) CPU cores", str(prov.get("machine", "")))
    where = gpu.group(1) if gpu else (f"{device}, {cores.group(1)} cores" if cores else device)
    return f"{describe(prov)}, {where}, {prov.get('date', '?')}"


def _needs_gpu(profile: str, prov: dict[str, Any] | None) -> str:
    if prov is None:
        return "no" if profile in CPU_PROFILES else "unknown: plan for one"
    return "yes" if str(prov.get("device", "cpu")).startswith("cuda") else "no"


def _stage_chapter(executed: Path, target: Path, box: str) -> None:
    """Write the executed chapter to ``target`` as the book renders it: ``box`` under its
    title (:func:`_insert_run_box`), papermill's cell folded (:func:`_fold_injected_parameters`),
    folded cells labelled by their first comment (:func:`_label_folded_cells`)."""
    notebook = json.loads(executed.read_text())
    _insert_run_box(notebook, box, executed.name)
    _fold_injected_parameters(notebook)
    _label_folded_cells(notebook)
    target.write_text(json.dumps(notebook, indent=1) + "\n")


def _insert_run_box(notebook: dict[str, Any], box: str, name: str) -> None:
    """Put ``box`` right under the title (the first ``# `` line) of ``notebook``, named ``name`` in errors."""
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        lines = "".join(cell["source"]).split("\n")
        title = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
        if title is None:
            raise BookError(f"{name}: the first Markdown cell has no `# title` line")
        rest = lines[title + 1:]
        cell["source"] = "\n".join([*lines[:title + 1], "", box, *([""] if rest and rest[0] else []), *rest])
        break


def _fold_injected_parameters(notebook: dict[str, Any]) -> None:
    """Fold the cell papermill injects (its input hidden behind a toggle), as the parameters cell is.

    The cell holds what this build set (``out_dir``, a profile's sizes): kept for whoever
    reruns the chapter, but not what a reader meets between the question and the story.
    """
    for cell in notebook["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if "injected-parameters" in tags and "hide-input" not in tags:
            cell["metadata"]["tags"] = [*tags, "hide-input"]


PARAMETER_LABELS = {"parameters": "Parameters: the chapter's defaults (the quick profile)",
                    "injected-parameters": "Parameters: what this build set on top"}


def _label_folded_cells(notebook: dict[str, Any]) -> None:
    """Label each folded code cell (``hide-input``) by its first line, when that is a comment.

    The toggle of a folded cell then reads ``Set-up: the libraries ...`` rather than
    MyST-NB's ``Show code cell source`` (its cell-level ``code_prompt_show``), so that a
    reader sees what the folded code does without opening it; the parameters cell and the
    one papermill injects are labelled by ``PARAMETER_LABELS``.
    """
    for cell in notebook["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] != "code" or "hide-input" not in tags:
            continue
        first = "".join(cell["source"]).lstrip().split("\n", 1)[0]
        # the two parameter cells: the chapter's defaults, and what this build set on top
        named = next((PARAMETER_LABELS[t] for t in tags if t in PARAMETER_LABELS), None)
        if named:
            cell["metadata"].setdefault("mystnb", {})["code_prompt_show"] = named
        elif first.startswith("# "):
            # MyST-NB formats the prompt with str.format: braces would be read as fields
            label = first[2:].strip().replace("{", "{{").replace("}", "}}")
            cell["metadata"].setdefault("mystnb", {})["code_prompt_show"] = label


def _filter_toc(node: Any, keep: set[str]) -> Any:
    """``_toc.yml`` without the chapter entries not in ``keep`` (and parts left empty)."""
    if isinstance(node, list):
        kept = [_filter_toc(item, keep) for item in node]
        return [item for item in kept if item is not None]
    if isinstance(node, dict):
        entry = node.get("file")
        if isinstance(entry, str) and entry.startswith("notebooks/") and Path(entry).stem not in keep:
            return None
        filtered = {key: _filter_toc(value, keep) for key, value in node.items()}
        if "chapters" in node and not filtered["chapters"]:
            return None
        return filtered
    return node


def _has_error_output(path: Path) -> bool:
    notebook = json.loads(path.read_text())
    return any(o.get("output_type") == "error"
               for cell in notebook["cells"] for o in cell.get("outputs", []))


def build(root: Path, profile: str, out: Path | None = None, only: list[str] | None = None) -> Path:
    """Render the staged book to HTML under ``<out>/book``; return the path of ``index.html``.

    ``out`` is the folder :func:`execute` wrote into (``_build/<profile>`` by default);
    ``only`` renders a partial book with just those chapters (see :func:`stage`).

    Raises
    ------
    BookError
        If a chapter is missing or failed, or Jupyter Book reports any warning.
    """
    if not (root / MATHJAX_DIR / "tex-chtml.js").is_file():
        raise BookError(f"MathJax is not installed under {MATHJAX_DIR}: run `python -m seqmi.book mathjax`")
    out = out or build_dir(root, profile)
    staged = stage(root, profile, out, only)
    html_root = out / "book"
    shutil.rmtree(html_root, ignore_errors=True)
    command = [_jupyter_book(), "build", str(staged), "--all", "-W", "-n", "--keep-going",
               "--path-output", str(html_root)]
    result = subprocess.run(command, cwd=root)
    if result.returncode != 0:
        raise BookError(f"jupyter-book build failed (exit {result.returncode}); see the warnings above")
    return html_root / "_build" / "html" / "index.html"


def _jupyter_book() -> str:
    beside = Path(sys.executable).with_name("jupyter-book")
    found = str(beside) if beside.is_file() else shutil.which("jupyter-book")
    if not found:
        raise BookError("jupyter-book is not installed: run `make book` or install requirements/lock.txt")
    return found


def record(root: Path, profile: str, only: list[str] | None = None, out: Path | None = None) -> list[Path]:
    """Copy each executed chapter's results, provenance and PNG figures to ``results/<profile>/``."""
    out = out or build_dir(root, profile)
    written = []
    for chapter in select(root, only):
        artifacts = out / "artifacts" / chapter
        if not (artifacts / RESULTS_FILE).is_file():
            raise BookError(f"{chapter}: no {RESULTS_FILE} under {artifacts}; execute it first")
        target = root / "results" / profile / chapter
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for item in [artifacts / RESULTS_FILE, artifacts / PROVENANCE_FILE, *sorted(artifacts.glob("*.png"))]:
            shutil.copy2(item, target / item.name)
        written.append(target)
    return written


def section_notebook(root: Path, chapter: str, section: str) -> Any:
    """The chapter reduced to its parameters, its ``setup`` cells and one tagged section.

    A section is the code cells tagged ``section-<name>``; they may use what the
    parameters cell and the cells tagged ``setup`` (imports, checks, ``results = {}``)
    define, and nothing else. A last cell writes the section's ``results`` to
    ``section.json`` in ``out_dir``.
    """
    import nbformat

    notebook = read_chapter(root, chapter)
    tag = SECTION_PREFIX + section
    code = [c for c in notebook.cells if c.cell_type == "code"]
    tags = [set(c.metadata.get("tags", [])) for c in code]
    if not any(tag in t for t in tags):
        found = sorted({t[len(SECTION_PREFIX):] for ts in tags for t in ts if t.startswith(SECTION_PREFIX)})
        raise BookError(f"{chapter} has no section {section!r}; its sections: {', '.join(found) or 'none'}")
    kept = [c for c, t in zip(code, tags) if t & {"parameters", SETUP_TAG, tag}]
    kept.append(nbformat.v4.new_code_cell("report.save_numbers(out_dir, 'section', results)"))
    notebook.cells = kept
    return notebook


def execute_section(root: Path, profile: str, chapter: str, section: str,
                    extra: dict[str, Any] | None = None, out: Path | None = None) -> Path:
    """Execute one section of a chapter at a profile, without touching any recording.

    The section (:func:`section_notebook`) runs with the profile's parameters and
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
    parameters = {**overrides, "out_dir": str(out)}
    commit = source_commit(root)
    os.environ[ROOT_ENV], os.environ[PROFILE_ENV] = str(root), profile
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


def record_section(root: Path, profile: str, chapter: str, section: str, out: Path | None = None) -> Path:
    """Execute one section of a chapter at a profile and merge it into that profile's recording.

    For a section added to a chapter whose recorded run is expensive to repeat whole: the
    section runs with today's profile parameters and code (:func:`execute_section`) and is
    merged by :func:`merge_section`.

    Returns
    -------
    Path
        The updated ``results.json``.
    """
    return merge_section(root, profile, chapter, section, execute_section(root, profile, chapter, section, out=out))


def merge_section(root: Path, profile: str, chapter: str, section: str, executed: Path) -> Path:
    """Merge an executed section (:func:`execute_section`'s folder) into ``results/<profile>/<chapter>``.

    Its numbers replace or join those of the recording, its figures are copied beside
    them, every claim is decided again on the merged numbers, and the provenance keeps the
    whole run's record and adds the section's under ``sections`` (commit, parameters,
    device, wall time); its top-level ``parameters`` keep the values the whole run had and
    gain the section's parameters it did not have (a section's new ones).

    Where the profile has no recording of the chapter, one is begun from the section
    (``"whole_run": false`` in its provenance): it holds that section's claims only, and
    the scoreboard reads the chapter's other claims from the next largest run
    (:func:`seqmi.claims.scoreboard.collect`). So a section run on a GPU machine is
    recorded at its scale when the rest of the chapter cannot be run there.

    Returns
    -------
    Path
        The updated ``results.json``.
    """
    from seqmi.report import dump_json, load_results, save_results

    numbers = json.loads((executed / "section.json").read_text())
    section_provenance = json.loads((executed / PROVENANCE_FILE).read_text())
    if section_provenance.get("profile") != profile:
        raise BookError(f"{executed} ran at profile {section_provenance.get('profile')!r}, not {profile!r}")
    folder = root / "results" / profile / chapter
    data_rule_hash, history = None, []  # a recording begun from the section: its numbers meet today's rules
    if (folder / RESULTS_FILE).is_file():
        recorded = load_results(folder)
        history = recorded.get("reclaims", [])
        numbers = {**recorded["results"], **numbers}
        # the recorded numbers keep the rules they first met: the merged run's verdicts are
        # marked wherever the rules changed since (per chapter: the section's own rows too)
        data_rule_hash = recorded.get("data_rule_hash", UNHASHED)
        provenance = json.loads((folder / PROVENANCE_FILE).read_text())
    else:
        folder.mkdir(parents=True)
        provenance = {**section_provenance, "whole_run": False, "sections_run": []}
    numbers["profile"] = profile  # a section's own numbers do not say it
    for figure in sorted(executed.glob("*.png")):
        shutil.copy2(figure, folder / figure.name)
    sections = provenance.setdefault("sections", {})
    sections.pop(section, None)  # last recorded last: staleness reads the sections in this order
    # the parameters its numbers depend on: staleness takes only these from the section
    section_provenance["reads"] = sorted(parameters_read(read_chapter(root, chapter).cells, section))
    sections[section] = section_provenance
    # a recording that does not say which sections it ran (it predates the record) still does not
    if "sections_run" in provenance:
        provenance["sections_run"] = list(dict.fromkeys([*provenance["sections_run"], section]))
    # the whole run's parameters stay as they ran; a parameter it did not have is the section's
    provenance["parameters"] = {**section_provenance["parameters"], **provenance["parameters"]}
    (folder / PROVENANCE_FILE).write_text(json.dumps(provenance, indent=2) + "\n")
    path = save_results(folder, chapter, numbers, data_rule_hash)
    if history:  # the re-decisions the recording went through stay with it
        path.write_text(dump_json({**load_results(folder), "reclaims": history}))
    return path


def reclaim(root: Path, profile: str, only: list[str] | None = None) -> list[tuple[Path, list[dict[str, Any]]]]:
    """Decide the claims of recorded runs again from their saved numbers, with the current rules.

    A claim rule that changes after a run was recorded (a corrected interval, a new
    guard) applies to the recorded numbers without running the chapter again: the
    numbers, figures and provenance stay as recorded, and only the claims are rewritten.
    Nothing is lost on the way: the recording keeps the rule hash its numbers were first
    decided with (``data_rule_hash``), so the scoreboard marks its verdicts as decided by
    a rule changed after the data, and each reclaim that changes the rules appends to
    ``reclaims`` the date, the two hashes and every claim whose verdict, value or interval
    moved, before and after. Chapters without a recorded run are skipped.

    Returns
    -------
    list of (Path, list of dict)
        Each rewritten ``results.json`` and the claims that moved in it.
    """
    from seqmi.report import decided, dump_json, load_results

    if profile not in PROFILES:
        raise BookError(f"unknown profile {profile!r}; allowed: {', '.join(PROFILES)}")
    written = []
    for chapter in select(root, only):
        folder = root / "results" / profile / chapter
        if not (folder / RESULTS_FILE).is_file():
            continue
        old = load_results(folder)
        new = decided(chapter, old["results"], old.get("data_rule_hash", UNHASHED))
        moved = moved_claims(old["claims"], new["claims"])
        history = old.get("reclaims", [])
        if moved or new["rule_hash"] != old.get("rule_hash", UNHASHED):
            history = [*history, {"date": time.strftime("%Y-%m-%d"), "from_rule": old.get("rule_hash", UNHASHED),
                                  "to_rule": new["rule_hash"], "moved": moved}]
        (folder / RESULTS_FILE).write_text(dump_json({**new, "reclaims": history} if history else new))
        written.append((folder / RESULTS_FILE, moved))
    return written


def _brief(claim: dict[str, Any] | None) -> str:
    """A claim's verdict, value and interval in one line (``"absent"`` for none)."""
    if claim is None:
        return "absent"
    ci = claim.get("ci")
    interval = f" [{ci[0]:.4g}, {ci[1]:.4g}]" if ci and None not in ci else ""
    value = "" if claim.get("value") is None else f" {claim['value']:.4g}"
    return f"{claim['verdict']}{value}{interval}"


def moved_claims(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The claims whose verdict, kind, value or interval differ between two decisions, before and after.

    A claim present on one side only is listed with ``None`` on the other.
    """
    keys = ("kind", "verdict", "value", "ci")
    old, new = ({c["id"]: {k: c.get(k) for k in keys} for c in side} for side in (before, after))
    return [{"id": i, "before": old.get(i), "after": new.get(i)}
            for i in dict.fromkeys([*old, *new]) if old.get(i) != new.get(i)]


def install_mathjax(root: Path, tarball: Path | None = None) -> Path:
    """Unpack MathJax 3 (npm package, checksum-verified) into ``_static/mathjax``.

    Parameters
    ----------
    root : Path
        The book root.
    tarball : Path, optional
        A local copy of the npm tarball, or a folder holding ``mathjax-<version>.tgz``
        (for machines without network); otherwise it is downloaded from the npm registry.
    """
    target = root / MATHJAX_DIR
    if (target / "tex-chtml.js").is_file():
        return target
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "mathjax.tgz"
        if tarball is None:
            with urllib.request.urlopen(MATHJAX_URL, timeout=60) as response:
                archive.write_bytes(response.read())
        else:
            source = tarball / f"mathjax-{MATHJAX_VERSION}.tgz" if tarball.is_dir() else tarball
            if not source.is_file():
                raise BookError(f"no MathJax tarball at {source}")
            shutil.copy2(source, archive)
        digest = hashlib.sha1(archive.read_bytes()).hexdigest()
        if digest != MATHJAX_SHA1:
            raise BookError(f"MathJax tarball checksum {digest} != expected {MATHJAX_SHA1}")
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith("package/es5/")]
            tar.extractall(tmp, members=members, filter="data")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(Path(tmp) / "package" / "es5"), target)
    return target


# ---------------------------------------------------------------- command line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m seqmi.book", description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=None, help="book root (default: found from cwd)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the chapters and their parameters")
    for name, help_text in (("execute", "execute chapters with papermill"),
                            ("build", "render the executed chapters to HTML"),
                            ("record", "copy executed results to results/<profile>/ (with --section: "
                                       "execute one section and merge it into the recording)"),
                            ("reclaim", "decide the claims of results/<profile>/ again from their saved "
                                        "numbers, with the current rules")):
        cmd = sub.add_parser(name, help=help_text)
        cmd.add_argument("--profile", choices=PROFILES, default="quick")
        cmd.add_argument("--only", nargs="*", default=None, metavar="ID",
                         help="chapter ids or NN prefixes (default: all)")
        if name in ("record", "execute"):
            cmd.add_argument("--section", default=None, metavar="NAME",
                             help="execute the cells tagged section-NAME of the one chapter in --only"
                                  + (" and merge them into its recorded run" if name == "record" else
                                     " (its caches filled, no recording touched)"))
        if name == "record":
            cmd.add_argument("--executed", type=Path, default=None, metavar="DIR",
                             help="with --section: merge this folder, which `execute --section` wrote "
                                  "(e.g. on a GPU machine), instead of executing the section here")
        if name == "execute":
            cmd.add_argument("--device", choices=("auto", "cpu", "cuda"), default=None,
                             help="override every chapter's device parameter")
            # papermill's own flags, applied on top of the profile
            cmd.add_argument("-p", "--parameters", nargs=2, action="append", metavar=("NAME", "VALUE"),
                             help="set a parameter; VALUE is typed as papermill types it")
            cmd.add_argument("-r", "--parameters_raw", nargs=2, action="append", metavar=("NAME", "VALUE"),
                             help="set a parameter to the string VALUE")
            cmd.add_argument("-y", "--parameters_yaml", action="append", metavar="YAML",
                             help='parameters as a YAML string, e.g. "max_lag: 40"')
            cmd.add_argument("-f", "--parameters_file", action="append", type=Path, metavar="FILE",
                             help="parameters from a YAML file")
    mj = sub.add_parser("mathjax", help="install MathJax 3 into _static/ for offline reading")
    mj.add_argument("--tarball", type=Path, default=None, help=f"local mathjax-{MATHJAX_VERSION}.tgz, or a folder holding it")
    return parser


def _one_chapter(root: Path, only: list[str] | None) -> str:
    """The one chapter ``--only`` names, as ``--section`` needs it."""
    selected = select(root, only)
    if len(selected) != 1:
        raise BookError(f"--section needs exactly one chapter in --only, got {selected}")
    return selected[0]


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m seqmi.book``; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        root = find_root(args.root)
        if args.command == "list":
            for chapter in chapters(root):
                print(describe_parameters(root, chapter))
        elif args.command == "execute":
            extra = cli_overrides(args.parameters, args.parameters_raw, args.parameters_yaml,
                                  args.parameters_file)
            if args.device:
                extra["device"] = args.device
            if args.section:
                out = execute_section(root, args.profile, _one_chapter(root, args.only), args.section, extra)
                print(f"section executed into {out.relative_to(root)}")
                return 0
            manifest = execute(root, args.profile, args.only, extra)
            failed = [c for c, entry in manifest.items() if entry["status"] != "ok"]
            if failed:
                raise BookError(f"chapter(s) failed: {', '.join(failed)}")
        elif args.command == "build":
            print(f"The book: {build(root, args.profile, only=args.only)}")
        elif args.command == "record" and args.section:
            chapter = _one_chapter(root, args.only)
            path = (merge_section(root, args.profile, chapter, args.section, args.executed) if args.executed
                    else record_section(root, args.profile, chapter, args.section))
            print(f"recorded {path.relative_to(root)}")
        elif args.command == "record":
            for path in record(root, args.profile, args.only):
                print(f"recorded {path.relative_to(root)}")
        elif args.command == "reclaim":
            for path, moved in reclaim(root, args.profile, args.only):
                print(f"claims decided again: {path.relative_to(root)}, {len(moved)} moved")
                for m in moved:
                    print(f"  {m['id']}: {_brief(m['before'])} -> {_brief(m['after'])}")
        elif args.command == "mathjax":
            print(f"MathJax in {install_mathjax(root, args.tarball)}")
    except BookError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
