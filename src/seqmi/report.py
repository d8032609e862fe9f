"""Chapter results: the JSON a chapter writes, its claims table, and reference runs.

Every chapter creates one :class:`seqmi.report.ChapterRun` in its set-up cell, from its
id and its ``out_dir`` and ``profile`` parameters, and ends by calling its
:meth:`seqmi.report.ChapterRun.save_results` with its checkable numbers. The claims are
then computed from the *saved* JSON by the chapter's rule in :mod:`seqmi.claims` and
stored next to the numbers, and :meth:`seqmi.report.ChapterRun.claims_table` renders
them, so the prose, the test and the scoreboard can never drift from the computation.

File layout of one chapter's ``out_dir`` (and of ``results/<profile>/<chapter>/``)::

    results.json      {"chapter": ..., "results": {...}, "claims": [...]}
    provenance.json   written by the executor: commit, profile, device, torch, wall time
    *.png             figures saved with :func:`seqmi.report.save_figure`
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import yaml

from seqmi import claims as claim_rules
from seqmi.profiles import DEFAULT_PROFILE, PROFILES, RECORDED_PROFILES
from seqmi.results import as_json
from seqmi.sections import parameters_read, readers, results_stored, section_names
from seqmi.validate import check_choice

RESULTS_FILE = "results.json"
PROVENANCE_FILE = "provenance.json"
ROOT_ENV = "SEQMI_BOOK_ROOT"
PROFILES_FILE = Path("notebooks") / "profiles.yml"
# parameters that say where and how a run executes, not what it computes: a recording made
# with another cache, ledger, scheduler, thread count, device or number of seeds trained
# together (each seed's record is the one it has alone) is not stale for it, nor for the
# profile a chapter is told it runs at (the recording's folder names that)
EXECUTION_PARAMETERS = frozenset({"cache_dir", "ledger_dir", "scheduler", "cpu_threads", "device", "out_dir",
                                  "family_seeds", "l2m_replicates_together", "profile"})


def dump_json(payload: Any) -> str:
    """``payload`` as indented JSON text whose arrays of scalars each stand on one line.

    A reference run keeps every seed's position-wise curves; indented one number per line,
    they would be most of a recording's size, and no reader reads them line by line.
    The values are exactly those of ``json.dumps``: only whitespace differs.
    """
    return _indented(payload, 0) + "\n"


def _indented(value: Any, level: int) -> str:
    inner, outer = "  " * (level + 1), "  " * level
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(str(k))}: {_indented(v, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{outer}}}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        items = [inner + _indented(v, level + 1) for v in value]
        return "[\n" + ",\n".join(items) + f"\n{outer}]"
    return json.dumps(value)


def save_results(out_dir: str | os.PathLike, chapter: str, results: dict[str, Any], profile: str,
                 data_rule_hash: str | None = None) -> Path:
    """Write ``results.json`` (numbers and claims) into ``out_dir``.

    The numbers are written first; the claims are then computed by the chapter's rule
    (:func:`seqmi.claims.for_chapter`) from the JSON as read back, exactly as the tests
    and the scoreboard compute them, and stored with every field, beside the hash of the
    rules that decided them (:func:`seqmi.claims.rule_hash`).

    Parameters
    ----------
    out_dir : path
        The chapter's output folder (created if needed).
    chapter : str
        The chapter id, e.g. ``"00_mutual_information"``.
    results : dict
        JSON-serialisable numbers (numpy scalars and arrays are converted).
    profile : str
        The profile the numbers ran at, added to them as ``"profile"`` where they do not
        name one.
    data_rule_hash : str, optional
        The rule hash the numbers were first decided with, for numbers decided again
        (:func:`seqmi.book.reclaim`); fresh numbers take the current one.

    Returns
    -------
    pathlib.Path
        The written file.
    """
    path = Path(out_dir) / RESULTS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    numbers = as_json({"profile": profile, **results})
    path.write_text(dump_json(decided(chapter, numbers, data_rule_hash)))
    return path


def decided(chapter: str, numbers: dict[str, Any], data_rule_hash: str | None = None) -> dict[str, Any]:
    """The ``results.json`` payload of ``numbers``: the claims decided by today's rules, and their hashes."""
    rows = [c.as_dict() for c in claim_rules.for_chapter(chapter, numbers)]
    current = claim_rules.rule_hash(chapter)
    return {"chapter": chapter, "results": numbers, "claims": rows, "rule_hash": current,
            "data_rule_hash": data_rule_hash or current}


def save_numbers(out_dir: str | os.PathLike, name: str, results: dict[str, Any]) -> Path:
    """Write ``results`` as ``<name>.json`` into ``out_dir``, without claims (a section's part).

    Used by :func:`seqmi.book.record_section`, which merges the numbers into a recorded
    run and decides the claims on the whole.
    """
    path = Path(out_dir) / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_json(as_json(results)))
    return path


def load_results(out_dir: str | os.PathLike) -> dict[str, Any]:
    """Read the ``results.json`` that :func:`save_results` wrote in ``out_dir``."""
    return json.loads((Path(out_dir) / RESULTS_FILE).read_text())


def claims_markdown(payload: dict[str, Any]) -> str:
    """The claims of a results payload as a Markdown table."""
    # the verdict comes early so that it stays in view on a narrow page
    rows = ["| claim | source | verdict | kind | ours | rule | differs from the paper | scale |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for c in payload["claims"]:
        cells = (c["statement"], c["source"], f"**{c['verdict']}**", c["kind"], _ours(c), c["rule"],
                 c["substitution"] or "—", c["scale"])
        rows.append("| " + " | ".join(_cell(s) for s in cells) + " |")
    designs = [f"`{c['id']}`\n: {_cell(claim_rules.design_text(c['design']))}\n" for c in payload["claims"]
               if c.get("design")]
    if designs:
        rows += ["", "How each statistical claim is decided: the paper's hypothesis (h1) against its "
                 "alternative (h0), the test, the unit of replication and the power.", "", *designs]
    return "\n".join(rows)


def _ours(claim: dict[str, Any]) -> str:
    text = claim.get("detail") or ("" if claim["value"] is None else f"{claim['value']:.4g}")
    if claim["ci"] is not None and None not in claim["ci"]:
        text += f" (95% CI {claim['ci'][0]:.3g}..{claim['ci'][1]:.3g})"
    return text or "—"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def save_figure(fig: Any, out_dir: str | os.PathLike, name: str) -> Path:
    """Save a matplotlib figure as ``out_dir/name.png`` (150 dpi) and return the path."""
    path = Path(out_dir) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=150, bbox_inches="tight")
    return path


# (chapter, figure name) pairs that ChapterRun.show_figure put in place in this process:
# the end-of-chapter recordings (show_reference) point to them instead of repeating them
_SHOWN_IN_PLACE: set[tuple[str, str]] = set()


@dataclasses.dataclass(frozen=True)
class ChapterRun:
    """One run of a chapter, as its report calls need it: created once, in its set-up cell.

    A chapter makes it from its id and its ``out_dir`` and ``profile`` parameters, which
    the executor sets (:func:`seqmi.book.execute`), then saves and shows through it::

        chapter = report.ChapterRun("00_mutual_information", out_dir, profile)
        chapter.show_figure(fig, "two_point_mi")
        chapter.save_results(results)
        chapter.claims_table()

    Attributes
    ----------
    chapter : str
        The chapter id, e.g. ``"00_mutual_information"``.
    out_dir : str or path
        The chapter's output folder (created when something is saved in it).
    profile : str
        The profile it runs at: one of :data:`seqmi.profiles.PROFILES`, or
        :data:`seqmi.profiles.DEFAULT_PROFILE` (a run outside the executor).

    Raises
    ------
    ValueError
        If ``profile`` is none of those.
    """

    chapter: str
    out_dir: str | os.PathLike
    profile: str

    def __post_init__(self) -> None:
        check_choice("profile", self.profile, (DEFAULT_PROFILE, *PROFILES))

    def save_results(self, results: dict[str, Any]) -> Path:
        """Write ``results.json`` (numbers and claims) into ``out_dir`` at this run's profile.

        See :func:`seqmi.report.save_results`; returns the written file.
        """
        return save_results(self.out_dir, self.chapter, results, self.profile)

    def claims_table(self) -> Any:
        """Display-ready claims table read back from ``out_dir/results.json``."""
        from IPython.display import Markdown

        return Markdown(claims_markdown(load_results(self.out_dir)))

    def show_figure(self, fig: Any, name: str) -> None:
        """Save a figure (:func:`seqmi.report.save_figure`) and show it beside the same figure of
        every recorded run.

        Where ``results/<profile>/<chapter>/<name>.png`` exists (the full and reference
        runs, largest first), the reader meets the figure that decides the claims where the
        chapter draws it: one tab per recorded run, labelled with its profile, date and
        device, then a tab with this run's figure, labelled with this run's profile.
        Otherwise this run's figure alone, as ``plt.show()`` shows it. The tabs are
        sphinx-design's, pure HTML and CSS, with the images inline: an executed notebook
        carries them wherever it goes.

        It returns nothing, as ``plt.show()`` does: a chapter's figure cell ends with this
        call, and a returned path would be displayed as the cell's value (an absolute path
        of the machine that ran it). The figure is saved as ``<out_dir>/<name>.png``.
        """
        import matplotlib.pyplot as plt
        from IPython.display import HTML, display

        path = save_figure(fig, self.out_dir, name)
        recorded = [(folder, folder / f"{name}.png") for folder in recorded_dirs(self.chapter)]
        recorded = [(folder, png) for folder, png in recorded if png.is_file()]
        if not recorded:
            plt.show()
            return
        plt.close(fig)
        _SHOWN_IN_PLACE.add((self.chapter, name))
        tabs = [(_run_label(folder), png) for folder, png in recorded] + [(f"this run ({self.profile})", path)]
        display(HTML(_tab_set(name, tabs)))

    def show_reference(self) -> None:
        """Display every recorded run of the chapter (:func:`seqmi.report.show_reference`)."""
        show_reference(self.chapter)


def _run_label(folder: Path) -> str:
    """``reference run (2026-11-26, cpu)``, with ``stale`` when today's profile differs."""
    prov_path = folder / PROVENANCE_FILE
    prov = json.loads(prov_path.read_text()) if prov_path.is_file() else {}
    root = folder.parents[2]
    when = ", ".join(str(x) for x in (prov.get("date"), prov.get("device")) if x)
    stale = ", stale" if stale_parameters(folder, root) else ""
    return f"{folder.parent.name} run ({when}{stale})" if when else f"{folder.parent.name} run{stale}"


def _tab_set(name: str, tabs: list[tuple[str, Path]]) -> str:
    """sphinx-design's tab-set markup around inline PNGs, the first tab open."""
    import base64
    import html

    parts = ['<div class="sd-tab-set docutils seqmi-figure-tabs">']
    for i, (label, png) in enumerate(tabs):
        tab_id = f"{name}-{i}"
        data = base64.b64encode(png.read_bytes()).decode()
        parts += [f'<input{" checked" if i == 0 else ""} id="{tab_id}" name="{name}-tabs" type="radio">',
                  f'<label class="sd-tab-label" for="{tab_id}">{html.escape(label)}</label>',
                  f'<div class="sd-tab-content docutils"><img alt="{html.escape(label)}: {name}" '
                  f'src="data:image/png;base64,{data}" style="max-width: 100%"></div>']
    parts.append("</div>")
    parts.append('<p class="caption"><em>The first tab is the largest recorded run, the scale that decides '
                 "this figure's claims; the last is this run.</em></p>")
    return "\n".join(parts)


def book_root(start: str | os.PathLike | None = None) -> Path | None:
    """The book's root folder: ``$SEQMI_BOOK_ROOT``, else the first parent holding ``_toc.yml``."""
    env = os.environ.get(ROOT_ENV)
    if env:
        return Path(env)
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file():
            return folder
    return None


def recorded_dirs(chapter: str, root: str | os.PathLike | None = None) -> list[Path]:
    """Every recorded run of ``chapter``, largest scale first (``results/<profile>/<chapter>``)."""
    base = Path(root) if root is not None else book_root()
    if base is None:
        return []
    return [base / "results" / p / chapter for p in RECORDED_PROFILES
            if (base / "results" / p / chapter / RESULTS_FILE).is_file()]


def profile_table(root: Path) -> dict[str, Any]:
    """``notebooks/profiles.yml`` under ``root``: ``{profile: {chapter: {parameter: value}}}``."""
    return yaml.safe_load((root / PROFILES_FILE).read_text()) or {}


def profile_parameters(table: dict[str, Any], profile: str, chapter: str) -> dict[str, Any]:
    """What ``profile`` of a :func:`profile_table` sets for ``chapter`` (empty when nothing)."""
    return dict((table.get(profile) or {}).get(chapter) or {})


def stale_parameters(folder: Path, root: Path) -> list[str]:
    """The parameters of today's profile that a recorded run ran with other values.

    ``folder`` is ``results/<profile>/<chapter>``; its provenance's ``parameters``, with
    the parameters each section recorded since reads (:func:`seqmi.sections.parameters_read`,
    in the order recorded) on top, are compared with
    ``notebooks/profiles.yml`` under ``root`` (execution-only parameters,
    ``EXECUTION_PARAMETERS``, aside). A non-empty answer means the recording is stale:
    it no longer shows what today's profile computes.

    A parameter the recording did not have at all is passed over when every code cell
    that reads it today belongs to sections the recording never ran
    (:func:`seqmi.sections.readers`): a section added since, whose sizes are set before
    its run, has not touched the recorded numbers. Which sections ran, the provenance's
    ``sections_run`` says, and so does every section whose numbers the recording holds
    (:func:`seqmi.sections.results_stored`: cells tagged after the recording ran in it
    untagged); a recording without ``sections_run`` gets no such allowance. A parameter
    the recording ran with another value is stale whichever cells read it.
    """
    profile, chapter = folder.parent.name, folder.name
    if not (root / PROFILES_FILE).is_file():  # a book without profiles has no sizes to be stale against
        return []
    today = profile_parameters(profile_table(root), profile, chapter)
    prov_path = folder / PROVENANCE_FILE
    provenance = json.loads(prov_path.read_text()) if prov_path.is_file() else {}
    # sections recorded later ran with the profile of their day (seqmi.book.merge_section),
    # but vouch only for the parameters they read: the rest of their values never reached
    # the recorded numbers
    ran = provenance.get("parameters", {})
    for name, section in provenance.get("sections", {}).items():
        reads = section.get("reads")
        if reads is None:
            reads = _section_reads(root, chapter, name)
        ran = {**ran, **{k: v for k, v in section.get("parameters", {}).items() if k in reads}}
    # parameters the recording never had, read only where it never ran: a value that differs stays stale
    passed_over: set[str] = set()
    if "sections_run" in provenance and any(name not in ran for name in today):
        passed_over = _read_only_by_sections_not_run(root, folder, set(provenance["sections_run"])) - set(ran)
    missing = object()
    return [name for name, value in today.items()
            if name not in EXECUTION_PARAMETERS and name not in passed_over and ran.get(name, missing) != value]


def _read_only_by_sections_not_run(root: Path, folder: Path, sections_run: set[str]) -> set[str]:
    """The parameters that today only cells of sections the recording in ``folder`` never ran read."""
    cells = _chapter_cells(root, folder.name)
    held = set(load_results(folder)["results"]) if (folder / RESULTS_FILE).is_file() else set()
    # a section tagged after the recording was made ran in it as untagged cells: the
    # recording holds numbers the section stores
    ran = sections_run | {s for s in section_names(cells) if results_stored(cells, s) & held}
    return {name for name, cells_sections in readers(cells).items()
            if all(sections and not sections & ran for sections in cells_sections)}


def _chapter_cells(root: Path, chapter: str) -> list[Any]:
    """Today's cells of the chapter's notebook (none when it has no notebook)."""
    import jupytext

    path = root / "notebooks" / f"{chapter}.md"
    return jupytext.read(path).cells if path.is_file() else []


def _section_reads(root: Path, chapter: str, section: str) -> set[str]:
    """The parameters ``section`` of the chapter reads today (none if it has no such section any more)."""
    try:
        return parameters_read(_chapter_cells(root, chapter), section)
    except ValueError:
        return set()


def show_reference(chapter: str, root: str | os.PathLike | None = None) -> None:
    """Display every recorded run of ``chapter`` (see :func:`recorded_dirs`), largest scale
    first: provenance, claims, figures.

    Prints a one-line notice when no run has been recorded yet.
    """
    from IPython.display import Markdown, display

    folders = recorded_dirs(chapter, root)
    if not folders:
        display(Markdown(f"*No full-profile or reference run of `{chapter}` has been recorded yet "
                         "(see the README: `make results PROFILE=reference`).*"))
    for folder in folders:
        _show_recorded(folder, folder.parents[2])


def _show_recorded(folder: Path, root: Path) -> None:
    from IPython.display import Image, Markdown, display

    prov_path = folder / PROVENANCE_FILE
    prov = json.loads(prov_path.read_text()) if prov_path.is_file() else {}
    threads = prov.get("parameters", {}).get("cpu_threads")
    display(Markdown(
        f"**Recorded {prov.get('profile', folder.parent.name)}-profile run** (`results/{folder.parent.name}/`): "
        f"commit `{prov.get('commit', '?')[:10]}`, device {prov.get('device', '?')}"
        + (f" ({threads} CPU thread{'s' if threads != 1 else ''})" if threads and prov.get("device") == "cpu" else "")
        + f", torch {prov.get('torch', '?')}, {prov.get('wall_s', float('nan')):.0f} s."
        + ("" if prov.get("whole_run", True) else
           f" Sections {', '.join(prov.get('sections', {}))} only: the chapter's other claims are not in it.")))
    stale = stale_parameters(folder, root)
    if stale:
        display(Markdown(f"*Stale: today's {folder.parent.name} profile sets {', '.join(stale)} otherwise; "
                         "this recording shows what the older sizes gave.*"))
    payload = load_results(folder)
    try:
        for claim in payload["claims"]:
            claim_rules.check_record(claim)
    except (ValueError, TypeError, KeyError) as err:
        display(Markdown(f"*This recorded run predates the current claim format ({err}); record it again "
                         "to see its claims table.*"))
    else:
        display(Markdown(claims_markdown(payload)))
    in_place = sorted(png.stem for png in folder.glob("*.png") if (folder.name, png.stem) in _SHOWN_IN_PLACE)
    if in_place:
        display(Markdown(f"Its figures {', '.join(f'`{n}`' for n in in_place)} are shown in place above, each "
                         "in its own tab beside this run's."))
    for png in sorted(folder.glob("*.png")):
        if png.stem not in in_place:
            display(Image(filename=str(png)))

