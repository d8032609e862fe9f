"""The statistical rules of chapters 00, 01, 02 and 05, run on data made under their h0 and h1
at the scale of the recorded runs the scoreboard reads (``results/full/``)."""

import json
from pathlib import Path

import numpy as np
import pytest

from seqmi import claims
from seqmi.claims import calibration

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ("00_mutual_information", "01_linear_rnn", "02_binary_sequences", "05_ngram_ssm")
# the book's page uses 1,000 replicates and a limit of 5%; 200 replicates scatter a true 5% by ±1.5%
REPLICATES, SIZE_LIMIT = 200, 0.08


def _recorded(chapter: str) -> dict:
    return json.loads((ROOT / "results" / "full" / chapter / "results.json").read_text())["results"]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_statistical_claim_has_one_calibration(chapter):
    results = _recorded(chapter)
    statistical = [c.id for c in claims.for_chapter(chapter, results) if c.kind == "statistical"]
    declared = [c.claim_id for c in calibration.chapter_calibrations(chapter, results)]
    assert sorted(declared) == sorted(statistical)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_rules_keep_their_size_at_the_recorded_scale(chapter):
    for cal in calibration.chapter_calibrations(chapter, _recorded(chapter)):
        rates = calibration.calibrate(cal, replicates=REPLICATES)
        assert rates.size <= SIZE_LIMIT, f"{cal.claim_id}: size {rates.size:.3f} under h0 ({cal.h0})"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_calibration_draws_every_verdict_from_the_rules_own_outcomes(chapter):
    rng = np.random.default_rng(0)
    for cal in calibration.chapter_calibrations(chapter, _recorded(chapter)):
        for hypothesis in calibration.HYPOTHESES:
            assert cal.verdict(hypothesis, rng) in claims.VERDICTS, cal.claim_id
