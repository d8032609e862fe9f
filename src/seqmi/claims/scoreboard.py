"""The book's scoreboard: every claim of every chapter in one table, with counts.

Each claim comes from the largest run that computed it: ``results/full/<chapter>/``, then
``results/reference/<chapter>/``, then the live run of the book being built (its
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

from seqmi.claims import UNHASHED, VERDICTS, check_record, design_text
from seqmi.profiles import RECORDED_PROFILES
from seqmi.report import stale_parameters
PAPERS = {"shen2019": "Shen 2019", "chen2025": "Chen et al. 2025 (L2M)", "kerg2020": "Kerg et al. 2020",
          "nandakumar": "Nandakumar et al.", "primer": "closed forms (primer)", "book": "this book"}
# the claims table's paper column: one word each, so that the table fits a laptop's column
PAPER_TAGS = {"shen2019": "Shen", "chen2025": "L2M", "kerg2020": "Kerg", "nandakumar": "Nandakumar",
              "primer": "primer", "book": "book"}
TABLE_CLASS = "scoreboard-claims"  # styled by _static/seqmi.css
PAGE_FILE = "claims.md"  # the page, under book/
TABLE_FILE = "claims_table.md"  # the table it includes, written next to it


@dataclass(frozen=True)
class Row:
    """One claim on the scoreboard, with the run it was read from."""

    chapter: str
    claim: dict[str, Any]
    origin: str  # "results/full", "results/reference", either with " (stale)", or "live quick run"
    commit: str
    # the claim's verdict in the chapter's other runs, by origin ("results/reference": "reproduced")
    elsewhere: tuple[tuple[str, str], ...] = ()
    # its verdict comes from a rule edited after the run's numbers were first decided
    rule_changed: bool = False


def rule_changed(payload: dict[str, Any]) -> bool:
    """Whether a recording's verdicts come from rules other than those its numbers were first decided with.

    A recording from before rules were hashed counts as changed: its rules may have been
    edited since, and nothing says they were not. A reclaim that moved no claim (every
    verdict, value and interval the same from the new rules: code moved or rewritten,
    not a decision changed, as far as these numbers can tell) carries the first rules
    forward; the first reclaim that moved a claim breaks the chain for good.
    """
    rules = payload.get("data_rule_hash", UNHASHED)
    if rules == UNHASHED:
        return True
    for entry in payload.get("reclaims", []):
        if entry["from_rule"] == rules and not entry["moved"]:
            rules = entry["to_rule"]
    return rules != payload.get("rule_hash", UNHASHED)


def _current(folder: Path) -> bool:
    """Whether every claim stored in ``folder`` has the current record's fields and values."""
    try:
        for claim in json.loads((folder / "results.json").read_text())["claims"]:
            check_record(claim)
    except (ValueError, TypeError, KeyError):
        return False
    return True


def chapter_runs(root: Path, chapter: str, live: Path | None) -> list[tuple[Path, str]]:
    """The folders of ``chapter``'s runs, largest first, each with a label saying which.

    ``results/full``, then ``results/reference``, then the live run of the book being built
    (labelled ``"live <profile> run"``). A recorded run whose parameters differ from today's
    profile (:func:`seqmi.report.stale_parameters`) is labelled stale and comes after the
    current recordings, before the live run: a stale recording never overrides a current
    one, and still outranks the quick run a build makes. Of two stale recordings, the one
    with fewer parameters set otherwise than today comes first. A recorded run that predates the
    current claim record is passed over (the chapter's page says so too), so the scoreboard
    never shows a claim without its kind or scale.
    """
    current, stale = [], []
    for profile in RECORDED_PROFILES:
        folder = root / "results" / profile / chapter
        if (folder / "results.json").is_file() and _current(folder):
            differ = stale_parameters(folder, root)
            if differ:
                stale.append((len(differ), folder, f"results/{profile} (stale)"))
            else:
                current.append((folder, f"results/{profile}"))
    # among stale recordings, the one nearest today's profile (fewest parameters set
    # otherwise) first; a stable sort keeps full before reference on a tie
    found = current + [(folder, label) for _, folder, label in sorted(stale, key=lambda x: x[0])]
    if live is not None and (live / chapter / "results.json").is_file() and _current(live / chapter):
        found.append((live / chapter, _live_label(live / chapter)))
    return found


def _live_label(folder: Path) -> str:
    """``"live <profile> run"`` for the live run's folder."""
    prov_path = folder / "provenance.json"
    profile = json.loads(prov_path.read_text()).get("profile") if prov_path.is_file() else None
    return f"live {profile or json.loads((folder / 'results.json').read_text())['results'].get('profile', '?')} run"


def collect(root: Path, chapters: list[str], live: Path | None) -> list[Row]:
    """Every claim of ``chapters``, each from the largest run that computed it.

    A run may compute only some of a chapter's claims (a recording begun with one section
    run at a larger scale): each claim is read from the largest run holding it
    (:func:`chapter_runs`), and its verdicts in the chapter's other runs go beside it. Rows
    follow the order of the chapter's most complete run.

    Raises
    ------
    ValueError
        If a stored claim lacks a field or has a kind or verdict outside the allowed ones.
    """
    rows = []
    for chapter in chapters:
        runs = []
        for folder, origin in chapter_runs(root, chapter, live):
            payload = json.loads((folder / "results.json").read_text())
            claims = payload["claims"]
            for claim in claims:
                check_record(claim)
            prov_path = folder / "provenance.json"
            commit = json.loads(prov_path.read_text()).get("commit", "?") if prov_path.is_file() else "?"
            runs.append((origin, str(commit)[:10], {c["id"]: c for c in claims}, rule_changed(payload)))
        ids = list(dict.fromkeys(i for _, _, by_id, _ in sorted(runs, key=lambda r: -len(r[2])) for i in by_id))
        for claim_id in ids:
            holding = [(origin, commit, by_id[claim_id], changed) for origin, commit, by_id, changed in runs
                       if claim_id in by_id]
            origin, commit, claim, changed = holding[0]
            others = tuple((o, c["verdict"]) for o, _, c, _ in holding[1:])
            rows.append(Row(chapter, claim, origin, commit, others, changed))
    return rows


def paper_of(claim_id: str) -> str:
    """The paper a claim id belongs to (its first dotted part)."""
    return PAPERS.get(claim_id.split(".", 1)[0], claim_id.split(".", 1)[0])


def paper_tag(claim_id: str) -> str:
    """The one-word name of a claim's paper in the claims table (``Shen``, ``L2M``...)."""
    key = claim_id.split(".", 1)[0]
    return PAPER_TAGS.get(key, key)


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


BADGES = {"reproduced": "bdg-success", "not reproduced": "bdg-danger", "inconclusive": "bdg-warning",
          "erratum": "bdg-info", "passed": "bdg-secondary", "failed": "bdg-secondary"}
# the mark of a verdict decided by a rule edited after its run's numbers were first decided
CHANGED_MARK = "†"


def badge(verdict: str) -> str:
    """A verdict as a coloured sphinx-design badge (an illustration's "passed" or "failed" in grey)."""
    return f"{{{BADGES[verdict]}}}`{verdict}`"


def run_label(origin: str) -> str:
    """The short name of a run in the table: ``full``, ``reference (stale)``, ``quick``..."""
    if origin.startswith("results/"):
        return origin[len("results/"):]
    return origin.removeprefix("live ").removesuffix(" run")


def markdown(rows: list[Row], linked: set[str]) -> str:
    """Counts per verdict and per paper, one narrow row per claim, then each claim's details.

    The table keeps what a reader scans for (id, paper, kind, verdict, the run it was read
    from, the chapter) so that it fits a laptop screen; each claim's scale, the commit of
    its run and its verdicts in the chapter's other runs follow in a list below it, under
    the claim's id. Chapters in ``linked`` get a cross-reference to their claims section
    (a label ``claims-<chapter>`` that every chapter defines); others are named only.
    """
    evidence = [r for r in rows if r.claim["kind"] != "illustration"]
    shown = [r for r in rows if r.claim["kind"] == "illustration"]
    totals = Counter(r.claim["verdict"] for r in evidence)
    checks = Counter(r.claim["verdict"] for r in shown)
    out = [f"{len(rows)} claims from {len({r.chapter for r in rows})} chapters: {len(evidence)} exact or "
           f"statistical, decided below, and {len(shown)} illustrations (checks of our code on cases built "
           f"for it, never counted as reproduced or not: {checks.get('passed', 0)} passed, "
           f"{checks.get('failed', 0)} failed).", "",
           "| verdict | claims |", "| --- | ---: |"]
    out += [f"| {badge(v)} | {totals.get(v, 0)} |" for v in VERDICTS]
    papers = list(dict.fromkeys(paper_of(r.claim["id"]) for r in rows))
    out += ["", "| paper | " + " | ".join(VERDICTS) + " | decided | illustrations |",
            "| --- |" + " ---: |" * (len(VERDICTS) + 2)]
    for paper in papers:
        counts = Counter(r.claim["verdict"] for r in evidence if paper_of(r.claim["id"]) == paper)
        n_shown = sum(paper_of(r.claim["id"]) == paper for r in shown)
        out.append(f"| {paper} | " + " | ".join(str(counts.get(v, 0)) for v in VERDICTS)
                   + f" | {sum(counts.values())} | {n_shown} |")
    changed = sum(r.rule_changed for r in rows)
    out += ["", f"{CHANGED_MARK} {changed} verdicts were decided by a rule edited after their run's numbers were "
            "first decided (or recorded before rules were hashed): their run's rule hash differs from "
            "today's, and `python -m seqmi.book reclaim` lists what each edit moved.",
            "", f":::{{div}} {TABLE_CLASS}", "| id | paper | kind | verdict | run | ch. |",
            "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        c = r.claim
        where = (f"{{ref}}`{r.chapter[:2]} <claims-{r.chapter}>`" if r.chapter in linked else r.chapter[:2])
        cells = (f"`{c['id']}`", paper_tag(c["id"]), c["kind"])
        mark = f" {CHANGED_MARK}" if r.rule_changed else ""
        out.append("| " + " | ".join(_cell(x) for x in cells) + f" | {badge(c['verdict'])}{mark} | "
                   + _cell(run_label(r.origin)) + f" | {where} |")
    out += [":::", "", "## What decided each claim", "",
            "Each claim's scale (the sizes of the run it was read from, and what would decide it when "
            "it is inconclusive), the commit of that run, and its verdict in the chapter's other runs; "
            "for a statistical claim, its design: the paper's hypothesis (h1), the alternative it is "
            "tested against (h0), the test, the unit of replication, the margin of an equivalence claim, "
            "and the power at the decisive size (each rule's measured size and power: "
            "{doc}`calibration`).", ""]
    for r in rows:
        c = r.claim
        read = f"{r.origin} ({r.commit})" if r.commit != "?" else r.origin
        others = "; ".join(f"{origin}: {verdict}" for origin, verdict in r.elsewhere) or "—"
        mark = f" {CHANGED_MARK} rule edited after the data." if r.rule_changed else ""
        design = f" {_cell(design_text(c['design']))}" if c.get("design") else ""
        out += [f"`{c['id']}`", f": {badge(c['verdict'])} read from {_cell(read)}.{mark} *Scale:* "
                f"{_cell(c['scale'])}.{design} *Other runs:* {_cell(others)}.", ""]
    return "\n".join(out) + "\n"


def write(root: Path, chapters: list[str], live: Path | None, target: Path, linked: set[str]) -> Path:
    """Write the scoreboard table to ``target`` and return it."""
    target.write_text(markdown(collect(root, chapters, live), linked))
    return target
