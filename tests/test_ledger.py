"""The committed ledger of finished points: read first, written as points finish, continued by a clone."""

import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest

from seqmi.ledger import Ledger, ledger_sizes, read_entry, source_commit
from seqmi.sweep import run_sweep, sweep_key

POINTS = [("a", 5), ("b", 50), ("c", 500), ("d", 7), ("e", 11), ("f", 13)]
SPEC = {"n_train": 100, "device": "cpu"}


def noise_stats(point, checkpoint_dir):
    kind, n = point
    x = np.random.default_rng([zlib.crc32(kind.encode()), n]).standard_normal(n)
    return {"kind": kind, "n": n, "mean": float(x.mean()), "device": "cpu"}


class Counting:
    """A compute that records which points it computed."""

    def __init__(self):
        self.calls = []

    def __call__(self, point, checkpoint_dir):
        self.calls.append(point)
        return noise_stats(point, checkpoint_dir)


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def test_a_finished_point_enters_the_ledger_with_its_provenance(tmp_path):
    folder = tmp_path / "results" / "points" / "03"
    run_sweep(POINTS[:2], noise_stats, cache_dir=None, spec=SPEC, name="binary", progress=False, ledger=folder)
    entry = read_entry(folder / f"{sweep_key('binary', POINTS[0], SPEC)}.json")
    assert entry["record"] == noise_stats(POINTS[0], None)
    assert entry["sweep"] == "binary" and entry["point"] == ["a", 5] and entry["spec"] == SPEC
    assert entry["seconds"] >= 0 and entry["devices"] == ["cpu"]
    assert "CPU cores" in entry["machine"] and entry["commit"] and entry["written"]
    # no weights, no checkpoints: one JSON file per point
    assert sorted(p.suffix for p in folder.iterdir()) == [".json", ".json"]


def test_the_ledger_is_read_before_the_cache_and_before_computing(tmp_path):
    folder, cache = tmp_path / "points", tmp_path / "cache"
    run_sweep(POINTS[:3], noise_stats, cache_dir=None, spec=SPEC, name="s", progress=False, ledger=folder)
    compute = Counting()
    result = run_sweep(POINTS, compute, cache_dir=cache, spec=SPEC, name="s", progress=False, ledger=folder)
    assert compute.calls == POINTS[3:]
    assert result.done == {p: noise_stats(p, None) for p in POINTS}
    # the points read from the ledger were not copied to the cache: the ledger is the record
    assert len(list(cache.glob("*.json"))) == 3


def test_a_point_found_only_in_a_cache_enters_the_ledger_without_a_time(tmp_path):
    folder, cache = tmp_path / "points", tmp_path / "cache"
    run_sweep(POINTS[:2], noise_stats, cache_dir=cache, spec=SPEC, name="s", progress=False)
    compute = Counting()
    run_sweep(POINTS[:2], compute, cache_dir=cache, spec=SPEC, name="s", progress=False, ledger=folder)
    assert compute.calls == []
    entries = list(Ledger(folder).entries())
    assert len(entries) == 2 and all(e["seconds"] is None for e in entries)


def test_other_settings_miss_the_ledger(tmp_path):
    folder = tmp_path / "points"
    run_sweep(POINTS[:2], noise_stats, cache_dir=None, spec=SPEC, name="s", progress=False, ledger=folder)
    compute = Counting()
    run_sweep(POINTS[:2], compute, cache_dir=None, spec={**SPEC, "n_train": 200}, name="s", progress=False,
              ledger=folder)
    assert compute.calls == POINTS[:2]


def test_an_unreadable_entry_is_computed_again(tmp_path):
    folder = tmp_path / "points"
    folder.mkdir()
    (folder / f"{sweep_key('s', POINTS[0], SPEC)}.json").write_text('{"key": "cut sh')
    compute = Counting()
    run_sweep(POINTS[:1], compute, cache_dir=None, spec=SPEC, name="s", progress=False, ledger=folder)
    assert compute.calls == POINTS[:1]
    assert Ledger(folder).read(sweep_key("s", POINTS[0], SPEC)) == noise_stats(POINTS[0], None)


def test_a_fresh_clone_computes_only_the_points_its_ledger_lacks(tmp_path, monkeypatch):
    """Half a run on one machine, committed; a clone elsewhere finishes the other half."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    git(first, "init", "-q")
    git(first, "config", "user.email", "a@b.c")
    git(first, "config", "user.name", "a")
    ledger = Path("results") / "points" / "03_tiny"
    monkeypatch.chdir(first)
    half = run_sweep(POINTS[:3], Counting(), cache_dir="_build/cache", spec=SPEC, name="binary",
                     progress=False, ledger=ledger)
    assert half.complete
    git(first, "add", "results")
    git(first, "commit", "-q", "-m", "half the points")
    git(tmp_path, "clone", "-q", str(first), str(second))
    monkeypatch.chdir(second)
    assert not (second / "_build").exists()
    compute = Counting()
    whole = run_sweep(POINTS, compute, cache_dir="_build/cache", spec=SPEC, name="binary", progress=False,
                      ledger=ledger)
    assert compute.calls == POINTS[3:]
    assert whole.complete and whole.done == {p: noise_stats(p, None) for p in POINTS}
    entries = {tuple(e["point"]): e for e in Ledger(second / ledger).entries()}
    assert len(entries) == len(POINTS)
    # the clone's points name the commit they were computed at
    head = git(second, "rev-parse", "HEAD").strip()
    assert all(entries[p]["commit"] == head for p in POINTS[3:])


def test_ledger_sizes_count_points_bytes_and_compute(tmp_path):
    folder = tmp_path / "results" / "points" / "06_attention_gradients"
    run_sweep(POINTS, noise_stats, cache_dir=None, spec=SPEC, name="minigrid", progress=False, ledger=folder)
    (size,) = ledger_sizes(tmp_path)
    assert size.chapter == "06_attention_gradients" and size.points == len(POINTS)
    assert size.sweeps == {"minigrid": len(POINTS)}
    assert size.bytes == sum(p.stat().st_size for p in folder.glob("*.json")) > 0


def test_a_ledger_needs_a_folder():
    with pytest.raises(ValueError, match="results/points"):
        Ledger(Path(""))


def test_source_commit_marks_changed_sources(tmp_path):
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.email", "a@b.c")
    git(tmp_path, "config", "user.name", "a")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("x = 1\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "m")
    head = git(tmp_path, "rev-parse", "HEAD").strip()
    assert source_commit(tmp_path) == head
    (tmp_path / "src" / "m.py").write_text("x = 2\n")
    assert source_commit(tmp_path) == head + "+dirty"
    assert source_commit(tmp_path / "nowhere") == "unknown"


ROOT = Path(__file__).resolve().parents[1]


def test_every_chapter_sweep_of_numbers_writes_to_the_ledger():
    """A sweep whose records are numbers passes the chapter's ledger; one of samples says why not."""
    import re

    calls = 0
    for chapter in sorted((ROOT / "notebooks").glob("*.md")):
        text = chapter.read_text()
        for match in re.finditer(r"run_sweep\(", text):
            if text[:match.start()].rstrip().endswith("import"):
                continue
            call = text[match.start():text.index("\n\n", match.start())]
            before = text[text.rfind("\n", 0, text.rfind("\n", 0, match.start())):match.start()]
            calls += 1
            assert "ledger=ledger_dir or None" in call or "kept out of the committed ledger" in before, \
                f"{chapter.name}: a sweep without the ledger: {call[:80]!r}"
    assert calls >= 10


def test_the_decisive_profiles_name_each_chapters_ledger():
    import yaml

    profiles = yaml.safe_load((ROOT / "notebooks" / "profiles.yml").read_text())
    for profile in ("reference", "full"):
        for chapter, values in profiles[profile].items():
            if "cache_dir" in values:
                assert values.get("ledger_dir") == f"results/points/{chapter}", (profile, chapter)


def test_points_belong_to_the_commit_their_run_started_at(tmp_path, monkeypatch):
    """An edit of the tree during a long run is not credited with the run's points."""
    from seqmi.ledger import COMMIT_ENV, run_commit

    monkeypatch.delenv(COMMIT_ENV, raising=False)
    with run_commit("abc123"):
        assert source_commit(tmp_path) == "abc123"
        run_sweep(POINTS[:1], noise_stats, cache_dir=None, spec=SPEC, name="s", progress=False,
                  ledger=tmp_path / "points")
    (entry,) = Ledger(tmp_path / "points").entries()
    assert entry["commit"] == "abc123"
    assert source_commit(tmp_path / "nowhere") == "unknown"  # restored
