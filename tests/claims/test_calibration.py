"""Every statistical rule is a test: run on data made under its h0, it says "reproduced" at most 5% of the time.

The calibrations are those the book's calibration page shows: each statistical claim of the
scoreboard, at the scale of the run it is read from (the recorded runs under ``results/``,
else the quick numbers of the rule's own synthetic results).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from seqmi import book, claims
from seqmi.claims import DECIDES, calibration, scoreboard
from seqmi.claims.calibration import SIZE_LIMIT, Calibration, calibrate, rate, scoreboard_calibrations

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = book.chapters(ROOT)
RECORDED = sorted(p for p in (ROOT / "results").glob("*/*") if (p / "results.json").is_file())


def _z_rule(effect: float) -> Calibration:
    """A one-sided z test of a mean of 10 unit normals at 2.5%: its size is 0.025 by construction."""
    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        x = rng.normal(0.0 if hypothesis == "h0" else effect, 1.0, 10)
        return "reproduced" if x.mean() / (1 / np.sqrt(10)) > 1.96 else "inconclusive"
    return Calibration("toy.z-test", "10 unit normals", "mean 0", f"mean {effect}", verdict)


def test_a_calibration_measures_size_and_power_and_is_the_same_every_time():
    rates = calibrate(_z_rule(1.0), replicates=2000)
    assert rates.size == pytest.approx(0.025, abs=0.01) and rates.valid
    # power of the z test against a shift of one sd with n = 10: Φ(√10 − 1.96) ≈ 0.885
    assert rates.power == pytest.approx(0.885, abs=0.02)
    assert rates.size_ci[0] <= rates.size <= rates.size_ci[1]
    assert calibrate(_z_rule(1.0), replicates=2000) == rates


def test_a_rule_that_ignores_its_data_is_not_valid():
    def always(hypothesis: str, rng: np.random.Generator) -> str:
        return "reproduced"
    assert not calibrate(Calibration("toy.always", "none", "anything", "anything", always), 50).valid


@pytest.mark.parametrize("bad, match", [("h2", "hypothesis must be one of"), ("h0", "replicates must be")])
def test_bad_calibration_input_is_named(bad, match):
    with pytest.raises(ValueError, match=match):
        rate(_z_rule(1.0), bad, replicates=0 if bad == "h0" else 10)


def test_a_calibration_states_what_it_simulates():
    with pytest.raises(ValueError, match="must be stated"):
        Calibration("toy.x", "", "h0 data", "h1 data", _z_rule(1.0).verdict)


@pytest.fixture(scope="module")
def shown():
    """Every statistical claim the scoreboard shows from the recorded runs, with its calibration."""
    return scoreboard_calibrations(ROOT, CHAPTERS, None)


def test_every_recorded_statistical_claim_is_calibrated(shown):
    found, missing = shown
    assert not missing, f"statistical claims without a calibration: {missing}"
    assert found


def test_every_statistical_rule_keeps_its_size(shown):
    found, _ = shown
    rates = [calibrate(c) for _, c in found]
    over = [(r.claim_id, r.size, r.size_ci) for r in rates if not r.valid]
    assert not over, f"rules that say reproduced under h0 more than {SIZE_LIMIT:.0%} of the time: {over}"


def test_the_calibration_page_lists_every_rule(shown, tmp_path):
    found, _ = shown
    page = calibration.write(ROOT, CHAPTERS, None, tmp_path / "table.md", replicates=20).read_text()
    assert all(f"`{c.claim_id}`" in page for _, c in found)


@pytest.mark.parametrize("folder", RECORDED, ids=[f"{p.parent.name}/{p.name}" for p in RECORDED])
def test_recorded_claims_carry_designs_and_say_what_would_decide_them(folder):
    payload = json.loads((folder / "results.json").read_text())
    for c in claims.for_chapter(folder.name, payload["results"]):
        assert (c.design is not None) == (c.kind == "statistical"), f"{c.id}: design {c.design!r} for a {c.kind}"
        if c.verdict == "inconclusive":
            assert DECIDES in c.scale, f"{c.id}: inconclusive without saying what would decide it: {c.scale!r}"


def test_the_scoreboard_counts_illustrations_apart_and_marks_edited_rules():
    rows = scoreboard.collect(ROOT, CHAPTERS, None)
    text = scoreboard.markdown(rows, set())
    shown = [r for r in rows if r.claim["kind"] == "illustration"]
    counted = sum(int(line.split("|")[2]) for line in text.splitlines() if line.startswith("| {bdg-"))
    assert counted == len(rows) - len(shown)  # the verdict counts leave illustrations out
    assert f"and {len(shown)} illustrations" in text
    marked = [line for line in text.splitlines() if line.startswith("| `") and f" {scoreboard.CHANGED_MARK} |" in line]
    assert len(marked) == sum(r.rule_changed for r in rows)
