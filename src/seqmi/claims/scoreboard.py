"""The book's scoreboard: every claim of every chapter in one table, with counts.

Each chapter's claims come from its largest recorded run, ``results/full/<chapter>/``,
then ``results/reference/<chapter>/``, then the live run of the book being built (its
``artifacts/<chapter>/``); every row says which, and gives the claim's verdict in the
other recorded runs and the live one too. The table is Markdown that
``python -m seqmi.book build`` writes next to ``book/claims.md``, which includes it.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from seqmi.claims import VERDICTS, check_record
from seqmi.report import RECORDED_PROFILES
PAPERS = {"shen2019": "Shen 2019", "chen2025": "Chen et al. 2025 (L2M)", "kerg2020": "Kerg et al. 2020",
          "nandakumar": "Nandakumar et al.", "primer": "closed forms (primer)", "book": "this book"}
PAGE_FILE = "claims.md"  # the page, under book/
TABLE_FILE = "claims_table.md"  # the table it includes, written next to it


@dataclass(frozen=True)
class Row:
    """One claim on the scoreboard, with the run it was read from."""

    chapter: str
    claim: dict[str, Any]
    origin: str  # "results/full", "results/reference" or "live quick run"
    commit: str
    # the claim's verdict in the chapter's other runs, by origin ("results/reference": "reproduced")
    elsewhere: tuple[tuple[str, str], ...] = ()


def _current(folder: Path) -> bool:
    """Whether every claim stored in ``folder`` has the current record's fields and values."""
    try:
        for claim in json.loads((folder / "results.json").read_text())["claims"]:
            check_record(claim)
    except (ValueError, TypeError, KeyError):
        return False
    return True


def chapter_source(root: Path, chapter: str, live: Path | None) -> tuple[Path, str] | None:
    """The folder holding ``chapter``'s largest run, and a label saying which one it is.

    A recorded run that predates the current claim record is passed over (the chapter's
    page says so too), so the scoreboard never shows a claim without its kind or scale.
    """
    for profile in RECORDED_PROFILES:
        folder = root / "results" / profile / chapter
        if (folder / "results.json").is_file() and _current(folder):
            return folder, f"results/{profile}"
    if live is not None and (live / chapter / "results.json").is_file():
        return live / chapter, "live run"
    return None


def _live_label(folder: Path) -> str:
    """``"live <profile> run"`` for the live run's folder."""
    prov_path = folder / "provenance.json"
    profile = json.loads(prov_path.read_text()).get("profile") if prov_path.is_file() else None
    return f"live {profile or json.loads((folder / 'results.json').read_text())['results'].get('profile', '?')} run"


def _other_verdicts(root: Path, chapter: str, live: Path | None, shown: Path) -> dict[str, dict[str, str]]:
    """``{claim id: {origin: verdict}}`` over the chapter's runs other than ``shown``."""
    folders = [(root / "results" / p / chapter, f"results/{p}") for p in RECORDED_PROFILES]
    if live is not None:
        folders.append((live / chapter, "live run"))
    found: dict[str, dict[str, str]] = {}
    for folder, origin in folders:
        if folder == shown or not (folder / "results.json").is_file() or not _current(folder):
            continue
        label = _live_label(folder) if origin == "live run" else origin
        for claim in json.loads((folder / "results.json").read_text())["claims"]:
            found.setdefault(claim["id"], {})[label] = claim["verdict"]
    return found


def collect(root: Path, chapters: list[str], live: Path | None) -> list[Row]:
    """Every claim of ``chapters`` from its largest run (see :func:`chapter_source`).

    Raises
    ------
    ValueError
        If a stored claim lacks a field or has a kind or verdict outside the allowed ones.
    """
    rows = []
    for chapter in chapters:
        found = chapter_source(root, chapter, live)
        if found is None:
            continue
        folder, origin = found
        payload = json.loads((folder / "results.json").read_text())
        prov_path = folder / "provenance.json"
        prov = json.loads(prov_path.read_text()) if prov_path.is_file() else {}
        if origin == "live run":
            origin = _live_label(folder)
        others = _other_verdicts(root, chapter, live, folder)
        for claim in payload["claims"]:
            check_record(claim)
            rows.append(Row(chapter, claim, origin, str(prov.get("commit", "?"))[:10],
                            tuple(others.get(claim["id"], {}).items())))
    return rows


def paper_of(claim_id: str) -> str:
    """The paper a claim id belongs to (its first dotted part)."""
    return PAPERS.get(claim_id.split(".", 1)[0], claim_id.split(".", 1)[0])


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(rows: list[Row], linked: set[str]) -> str:
    """Counts per verdict and per paper, then one row per claim.

    Chapters in ``linked`` get a cross-reference to their claims section (a label
    ``claims-<chapter>`` that every chapter defines); others are named only.
    """
    totals = Counter(r.claim["verdict"] for r in rows)
    out = [f"{len(rows)} claims from {len({r.chapter for r in rows})} chapters.", "",
           "| verdict | claims |", "| --- | ---: |"]
    out += [f"| {v} | {totals.get(v, 0)} |" for v in VERDICTS]
    papers = list(dict.fromkeys(paper_of(r.claim["id"]) for r in rows))
    out += ["", "| paper | " + " | ".join(VERDICTS) + " | all |", "| --- |" + " ---: |" * (len(VERDICTS) + 1)]
    for paper in papers:
        counts = Counter(r.claim["verdict"] for r in rows if paper_of(r.claim["id"]) == paper)
        out.append(f"| {paper} | " + " | ".join(str(counts.get(v, 0)) for v in VERDICTS)
                   + f" | {sum(counts.values())} |")
    out += ["", "| id | source | kind | scale | verdict | read from | other runs | chapter |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        c = r.claim
        where = (f"{{ref}}`{r.chapter[:2]} <claims-{r.chapter}>`" if r.chapter in linked else r.chapter[:2])
        others = "; ".join(f"{origin}: {verdict}" for origin, verdict in r.elsewhere) or "—"
        cells = (f"`{c['id']}`", c["source"], c["kind"], c["scale"], f"**{c['verdict']}**",
                 f"{r.origin} ({r.commit})" if r.commit != "?" else r.origin, others, where)
        out.append("| " + " | ".join(_cell(x) if i != 7 else x for i, x in enumerate(cells)) + " |")
    return "\n".join(out) + "\n"


def write(root: Path, chapters: list[str], live: Path | None, target: Path, linked: set[str]) -> Path:
    """Write the scoreboard table to ``target`` and return it."""
    target.write_text(markdown(collect(root, chapters, live), linked))
    return target
