"""Every stored claim, quick and recorded, carries every field; the rule reproduces it from
the saved numbers; and an illustration only passes or fails, never reproduces."""

import json
from pathlib import Path

import pytest

from seqmi import book, claims

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = book.chapters(ROOT)
RECORDED = sorted(p for p in (ROOT / "results").glob("*/*") if (p / "results.json").is_file())


def _check(stored: list[dict]) -> None:
    assert stored, "no claims"
    ids = [c["id"] for c in stored]
    assert len(ids) == len(set(ids)), "duplicate claim ids"
    for c in stored:
        claims.check_record(c)  # an illustration's verdict is "passed" or "failed" (Claim checks it)
        if c["verdict"] == "inconclusive":
            assert claims.DECIDES in c["scale"], f"{c['id']}: inconclusive without saying what would decide it"


@pytest.mark.book
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_quick_claims_are_complete_and_follow_from_the_saved_numbers(book_run, chapter):
    stored = book_run.claims(chapter)
    _check(stored)
    again = [c.as_dict() for c in claims.for_chapter(chapter, book_run.results(chapter))]
    assert json.loads(json.dumps(again)) == stored
    assert all(c["scale"].startswith("quick:") for c in stored)


@pytest.mark.parametrize("folder", RECORDED, ids=[f"{p.parent.name}/{p.name}" for p in RECORDED])
def test_recorded_claims_are_complete(folder):
    payload = json.loads((folder / "results.json").read_text())
    _check(payload["claims"])
    assert all(c["scale"].startswith(f"{folder.parent.name}:") for c in payload["claims"])
    # a rule changed since the run was recorded shows here: record the chapter again
    again = [c.as_dict() for c in claims.for_chapter(folder.name, payload["results"])]
    assert json.loads(json.dumps(again)) == payload["claims"]
    # and the recording says which rules decided it, and which its numbers first met
    assert payload.get("rule_hash") == claims.rule_hash(folder.name), "decide it again: book reclaim"
    assert payload.get("data_rule_hash"), "a recording names the rules its numbers were first decided with"
