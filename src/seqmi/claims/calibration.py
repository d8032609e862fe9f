"""Calibration of the statistical rules: each rule run on data made under its h0 and its h1.

A rule that decides a claim from an interval is only a test if it says "reproduced" rarely
when the paper's claim is false. For every statistical claim, its rule module declares a
:class:`Calibration`: a function that draws one data set under ``"h0"`` (the named
alternative of the claim's :class:`~seqmi.claims.Design`) or ``"h1"`` (the paper's
hypothesis at a stated effect), at the recorded scale (the same number of seeds, lags,
lengths or documents, and the recorded spread), and returns the verdict of the rule's own
decision function on it. :func:`calibrate` runs it many times:

- the **size** is the rate of ``"reproduced"`` under h0, and must be at most
  ``SIZE_LIMIT`` (5%): not significantly above it over the simulated data sets;
- the **power** is the rate of ``"reproduced"`` under h1 at the stated effect.

Each rule module exposes ``calibrations(results) -> list[Calibration]``, built from the
results dict of the run its verdict is read from (the scale is the recorded one), and
:func:`suite` gathers them for the book's calibration page and its test.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from seqmi.claims import module_name, typed
from seqmi.results import ChapterResults
from seqmi.rng import child_seed
from seqmi.stats import binomial_ci

HYPOTHESES = ("h0", "h1")
SIZE_LIMIT = 0.05  # a rule may say "reproduced" under its h0 at most this often
REPLICATES = 1000  # data sets drawn under each hypothesis


@dataclass(frozen=True)
class Calibration:
    """How one statistical rule is run on simulated data.

    Attributes
    ----------
    claim_id : str
        The claim whose rule is calibrated.
    scale : str
        What is simulated, in words: the units, sizes and spread, and where they come from.
    h0 : str
        The data made under h0, in words (e.g. ``"I = a ln L + b, residual sd 0.03"``).
    h1 : str
        The data made under h1 at the stated effect (e.g. ``"I = a L^0.3, same noise"``).
    verdict : callable
        ``verdict(hypothesis, rng)``: draws one data set under ``"h0"`` or ``"h1"`` with
        ``rng`` and returns the verdict of the rule's own decision function on it.
    """

    claim_id: str
    scale: str
    h0: str
    h1: str
    verdict: Callable[[str, np.random.Generator], str]

    def __post_init__(self) -> None:
        if not (self.claim_id and self.scale and self.h0 and self.h1):
            raise ValueError(f"calibration {self.claim_id!r}: claim_id, scale, h0 and h1 must be stated")


@dataclass(frozen=True)
class Rates:
    """Measured rates of "reproduced" of one rule under h0 (size) and h1 (power)."""

    claim_id: str
    size: float
    size_ci: list[float]
    power: float
    power_ci: list[float]
    replicates: int
    scale: str
    h0: str
    h1: str

    @property
    def valid(self) -> bool:
        """Whether the simulations leave the size at most ``SIZE_LIMIT`` (5%).

        A rule built as a 5% test (a TOST at 90%, a one-sided test at 5%) has a size of
        exactly 5% at the boundary of h0, and its measured size scatters around it by the
        simulation's own noise: the rule is valid unless its Wilson 95% interval lies wholly
        above the limit.
        """
        return self.size_ci[0] <= SIZE_LIMIT


def rate(calibration: Calibration, hypothesis: str, replicates: int = REPLICATES, seed: int = 0) -> float:
    """The fraction of ``replicates`` data sets made under ``hypothesis`` that the rule calls reproduced.

    Each replicate draws from its own generator (a named child of ``seed``), so a rate is
    the same on every machine and does not depend on the order rules are calibrated in.

    Raises
    ------
    ValueError
        If ``hypothesis`` is not ``"h0"`` or ``"h1"``, or ``replicates`` < 1.
    """
    if hypothesis not in HYPOTHESES:
        raise ValueError(f"hypothesis must be one of {HYPOTHESES}, got {hypothesis!r}")
    if replicates < 1:
        raise ValueError(f"replicates must be at least 1, got {replicates}")
    hits = 0
    for i in range(replicates):
        rng = np.random.default_rng(child_seed(seed, calibration.claim_id, hypothesis, i))
        hits += calibration.verdict(hypothesis, rng) == "reproduced"
    return hits / replicates


def calibrate(calibration: Calibration, replicates: int = REPLICATES, seed: int = 0) -> Rates:
    """Size and power of one rule, with their 95% Wilson intervals."""
    size = rate(calibration, "h0", replicates, seed)
    power = rate(calibration, "h1", replicates, seed)
    return Rates(calibration.claim_id, size, binomial_ci(size * replicates, replicates), power,
                 binomial_ci(power * replicates, replicates), replicates, calibration.scale,
                 calibration.h0, calibration.h1)


def chapter_calibrations(chapter: str, results: Mapping[str, Any] | ChapterResults) -> list[Calibration]:
    """The calibrations that ``chapter``'s rule module declares, at the scale of ``results`` (JSON or record)."""
    module = importlib.import_module(module_name(chapter))
    build = getattr(module, "calibrations", None)
    return [] if build is None else list(build(typed(chapter, results)))


def suite(runs: Sequence[tuple[str, dict[str, Any]]], replicates: int = REPLICATES,
          seed: int = 0) -> list[Rates]:
    """Calibrate every rule of ``runs``, pairs of a chapter and the results dict its verdicts come from."""
    return [calibrate(c, replicates, seed) for chapter, results in runs
            for c in chapter_calibrations(chapter, results)]


PAGE_FILE = "calibration.md"  # the page, under book/
TABLE_FILE = "calibration_table.md"  # the tables it includes, written next to it at build time


def scoreboard_calibrations(root: Path, chapters: Sequence[str], live: Path | None
                            ) -> tuple[list[tuple[str, Calibration]], list[str]]:
    """Every statistical claim's calibration, at the scale of the run the scoreboard reads it from.

    Returns
    -------
    (list of (str, Calibration), list of str)
        The chapter and calibration of each statistical claim, in scoreboard order, and
        the ids of statistical claims whose rule module declares no calibration.
    """
    from seqmi.claims.scoreboard import chapter_runs

    found, missing = [], []
    for chapter in chapters:
        seen: set[str] = set()
        for folder, _ in chapter_runs(root, chapter, live):
            payload = json.loads((folder / "results.json").read_text())
            declared = {c.claim_id: c for c in chapter_calibrations(chapter, payload["results"])}
            for claim in payload["claims"]:
                if claim["kind"] != "statistical" or claim["id"] in seen:
                    continue
                seen.add(claim["id"])
                if claim["id"] in declared:
                    found.append((chapter, declared[claim["id"]]))
                else:
                    missing.append(claim["id"])
    return found, missing


def markdown(rates: Sequence[Rates], missing: Sequence[str]) -> str:
    """Size and power per rule in a narrow table, then what each simulation made."""
    valid = sum(r.valid for r in rates)
    out = [f"{len(rates)} statistical rules calibrated with {rates[0].replicates if rates else REPLICATES:,} "
           f"data sets under each hypothesis; {valid} keep their size at or below {SIZE_LIMIT:.0%} (their "
           "interval of the size reaches the limit or below it).", ""]
    if missing:
        out += [f"Not calibrated ({len(missing)}): " + ", ".join(f"`{m}`" for m in missing) + ".", ""]
    out += ["| claim | size (h0) | power (h1) | valid |", "| --- | ---: | ---: | --- |"]
    for r in rates:
        out.append(f"| `{r.claim_id}` | {r.size:.3f} [{r.size_ci[0]:.3f}, {r.size_ci[1]:.3f}] | "
                   f"{r.power:.3f} [{r.power_ci[0]:.3f}, {r.power_ci[1]:.3f}] | {'yes' if r.valid else '**no**'} |")
    out += ["", "## What each calibration simulates", ""]
    for r in rates:
        out += [f"`{r.claim_id}`", f": *Scale:* {_cell(r.scale)}. *Under h0:* {_cell(r.h0)}. "
                f"*Under h1:* {_cell(r.h1)}.", ""]
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def write(root: Path, chapters: Sequence[str], live: Path | None, target: Path,
          replicates: int = REPLICATES) -> Path:
    """Calibrate every statistical rule the scoreboard shows and write the page's tables to ``target``."""
    found, missing = scoreboard_calibrations(root, chapters, live)
    target.write_text(markdown([calibrate(c, replicates) for _, c in found], missing))
    return target
