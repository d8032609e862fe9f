"""JSON records: keys and values checked against type hints, and written back as read."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Literal

import pytest

from seqmi.results import ChapterResults, JsonRecord, results_type


@dataclasses.dataclass(frozen=True, kw_only=True)
class Fit(JsonRecord):
    slope: float
    reached: int | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class Results(ChapterResults):
    lags: list[int]
    fits: dict[str, Fit]
    kind: Literal["rnn", "lstm"] = "rnn"
    best: Fit | None = None
    curves: Any = None
    odd_key: float = dataclasses.field(default=0.0, metadata={"json": "d=8"})


GOOD = {"profile": "quick", "lags": [1, 2], "fits": {"a": {"slope": 1, "reached": None}},
        "kind": "lstm", "d=8": 2.5}


def test_a_record_reads_nested_records_and_writes_back_what_it_read():
    r = Results.from_json(GOOD)
    assert r.fits["a"] == Fit(slope=1, reached=None) and r.odd_key == 2.5 and r.best is None
    assert r.to_json() == GOOD  # an absent optional field stays absent; a required null stays


def test_an_optional_section_is_read_when_present():
    r = Results.from_json({**GOOD, "best": {"slope": 0.5, "reached": 3}})
    assert r.best == Fit(slope=0.5, reached=3)


@pytest.mark.parametrize("data, message", [
    ({**GOOD, "lagz": [1]}, r"Results has no field\(s\) \['lagz'\]"),
    ({k: v for k, v in GOOD.items() if k != "fits"}, r"Results needs \['fits'\]"),
    ({**GOOD, "lags": [1, 2.5]}, r"Results\.lags\[1\] must be an integer, got float 2\.5"),
    ({**GOOD, "lags": 3}, r"Results\.lags must be a list, got int"),
    ({**GOOD, "fits": {"a": {"slope": "x", "reached": 1}}}, r"Results\.fits\.a\.slope must be a number"),
    ({**GOOD, "fits": {"a": {"slope": True, "reached": 1}}}, r"must be a number, got bool"),
    ({**GOOD, "kind": "gru"}, r"Results\.kind must be one of \['rnn', 'lstm'\], got 'gru'"),
    ({**GOOD, "fits": {"a": {"slope": 1}}}, r"Results\.fits\.a: Fit needs \['reached'\]"),
    ([1, 2], r"Results must be a JSON object for Results, got list"),
])
def test_bad_json_is_refused_naming_the_key_and_what_is_allowed(data, message):
    with pytest.raises(ValueError, match=message):
        Results.from_json(data)


def test_an_unsupported_type_hint_is_a_programming_error():
    @dataclasses.dataclass(frozen=True, kw_only=True)
    class Odd(JsonRecord):
        pair: tuple

    with pytest.raises(TypeError, match="cannot hold a field of type"):
        Odd.from_json({"pair": [1, 2]})


def test_a_chapter_without_a_record_is_named():
    with pytest.raises(ValueError, match="no results record for chapter '99_nothing'"):
        results_type("99_nothing")


def _chapters() -> list[str]:
    return sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9][0-9]_*.md"))


@pytest.mark.parametrize("chapter", _chapters())
def test_every_chapters_rules_and_calibrations_read_its_record(chapter):
    import importlib
    import typing

    from seqmi import claims

    module = importlib.import_module(claims.module_name(chapter))
    for function in (module.rules, module.calibrations):
        (hint,) = [h for name, h in typing.get_type_hints(function).items() if name != "return"]
        assert hint is results_type(chapter)
    assert issubclass(results_type(chapter), ChapterResults)


RECORDINGS = sorted((Path(__file__).resolve().parents[2] / "results").glob("*/*/results.json"))


@pytest.mark.parametrize("chapter", _chapters())
def test_every_chapter_has_a_recording(chapter):
    assert any(p.parent.name == chapter for p in RECORDINGS)


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: f"{p.parts[-3]}/{p.parts[-2]}")
def test_every_recording_is_read_and_written_back_exactly(path):
    recorded = json.loads(path.read_text())["results"]
    assert results_type(path.parent.name).from_json(recorded).to_json() == recorded
