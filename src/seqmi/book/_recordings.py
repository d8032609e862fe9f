"""Recorded runs under ``results/<profile>/``: copying them, merging a section in, and
deciding their claims again.

Re-exported by :mod:`seqmi.book`, where they are documented.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from seqmi.book._chapters import BookError, build_dir, read_chapter, select
from seqmi.book._running import execute_section
from seqmi.claims import UNHASHED
from seqmi.profiles import PROFILES
from seqmi.report import (PROVENANCE_FILE, RESULTS_FILE, decided, dump_json, load_results,
                          save_results)
from seqmi.sections import parameters_read


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


def record_section(root: Path, profile: str, chapter: str, section: str, out: Path | None = None) -> Path:
    """Execute one section of a chapter at a profile and merge it into that profile's recording.

    For a section added to a chapter whose recorded run is expensive to repeat whole: the
    section runs with today's profile parameters and code
    (:func:`seqmi.book.execute_section`) and is merged by :func:`seqmi.book.merge_section`.

    Returns
    -------
    Path
        The updated ``results.json``.
    """
    return merge_section(root, profile, chapter, section, execute_section(root, profile, chapter, section, out=out))


def merge_section(root: Path, profile: str, chapter: str, section: str, executed: Path) -> Path:
    """Merge an executed section (:func:`seqmi.book.execute_section`'s folder) into
    ``results/<profile>/<chapter>``.

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
    path = save_results(folder, chapter, numbers, profile, data_rule_hash)
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


def moved_claims(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The claims whose verdict, kind, value or interval differ between two decisions, before and after.

    A claim present on one side only is listed with ``None`` on the other.
    """
    keys = ("kind", "verdict", "value", "ci")
    old, new = ({c["id"]: {k: c.get(k) for k in keys} for c in side} for side in (before, after))
    return [{"id": i, "before": old.get(i), "after": new.get(i)}
            for i in dict.fromkeys([*old, *new]) if old.get(i) != new.get(i)]
