"""Recorded results follow the documented format of results/<profile>/<chapter>/."""

import json
from pathlib import Path

import pytest

from seqmi import book, claims, profiles, report

ROOT = Path(__file__).resolve().parents[2]
# results/points/ is the ledger of finished sweep points (seqmi.ledger), not a recording
RECORDED = sorted(p for profile in profiles.RECORDED_PROFILES for p in (ROOT / "results" / profile).glob("*")
                  if p.is_dir())
PROVENANCE_KEYS = {"commit", "profile", "parameters", "device", "torch", "python", "wall_s", "date"}


@pytest.mark.parametrize("folder", RECORDED, ids=[f"{p.parent.name}/{p.name}" for p in RECORDED])
def test_recorded_run_is_complete(folder):
    assert folder.name in book.chapters(ROOT), f"results for an unknown chapter {folder.name}"
    payload = report.load_results(folder)
    assert payload["chapter"] == folder.name
    assert payload["claims"] and all(c["verdict"] in (claims.CHECKS if c["kind"] == "illustration" else claims.VERDICTS)
                                     for c in payload["claims"])
    provenance = json.loads((folder / report.PROVENANCE_FILE).read_text())
    assert PROVENANCE_KEYS <= set(provenance)
    assert provenance["profile"] == folder.parent.name and not provenance["commit"].endswith("+dirty")
    assert list(folder.glob("*.png")), "no figure recorded"
    # 3 MB: a reference run keeps every seed's position-wise curve, which its claims' intervals need
    assert sum(f.stat().st_size for f in folder.iterdir()) < 3_000_000, "keep reference results small"
