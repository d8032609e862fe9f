"""Chapter 04's statistical rules on simulated data at the recorded scale: size and power."""

import json
from pathlib import Path

import pytest

from seqmi.claims import ch04_bipartite_mi_l2m as ch04
from seqmi.claims.calibration import calibrate
from seqmi.results.ch04_bipartite_mi_l2m import Results

ROOT = Path(__file__).parents[2] / "results"
CHAPTER = "04_bipartite_mi_l2m"
RUNS = [p for p in ("reference", "full") if (ROOT / p / CHAPTER / "results.json").is_file()]


def _results(profile: str) -> Results:
    return Results.from_json(json.loads((ROOT / profile / CHAPTER / "results.json").read_text())["results"])


@pytest.mark.parametrize("profile", RUNS)
def test_every_statistical_claim_has_a_calibration(profile):
    r = _results(profile)
    stated = {c.id for c in ch04.rules(r) if c.kind == "statistical"}
    assert stated == {c.claim_id for c in ch04.calibrations(r)}
    assert all(c.design is not None for c in ch04.rules(r) if c.kind == "statistical")


@pytest.mark.parametrize("profile", RUNS)
def test_calibrations_hold_their_size_at_the_recorded_scale(profile):
    # the book's page runs 1,000 replicates and asks for a size of at most 0.05
    rates = [calibrate(c, 200) for c in ch04.calibrations(_results(profile))]
    too_big = {r.claim_id: r.size for r in rates if r.size > 0.08}
    assert not too_big


def test_the_text_rules_have_power_against_their_stated_effect():
    # SmolLM2's curves at 120 chapters: the power law L^0.5 is told from logarithmic growth
    rates = {c.claim_id: c for c in ch04.calibrations(_results("reference"))}
    growth = calibrate(rates["chen2025.fig2bc.text-sublinear.smollm2"], 200)
    assert growth.power > 0.8
