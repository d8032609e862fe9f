"""A chapter run resumed over several passes: each pass recorded, and the total."""

import json
import os
import time
from pathlib import Path

import pytest

from seqmi import passes
from seqmi.passes import describe, duration, log_sweep, pending_points, record_pass, total_s


def add(ledger, parameters, wall, pending, status="ok"):
    return record_pass(ledger, parameters, wall_s=wall, commit="abc", status=status, pending=pending)


def test_passes_accumulate_while_points_are_pending_and_a_finished_run_starts_afresh(tmp_path):
    ledger = tmp_path / "passes" / "03.json"
    params = {"seeds": 3}
    assert len(add(ledger, params, 2998, 30)) == 1
    assert len(add(ledger, params, 2937, 12)) == 2
    run = add(ledger, params, 1501, 0)
    assert [p["wall_s"] for p in run] == [2998, 2937, 1501] and run[-1]["pending"] == 0
    # the run had finished: the next execution is a new run
    assert [p["wall_s"] for p in add(ledger, params, 20, 0)] == [20]


def test_other_parameters_or_a_run_without_sweeps_begin_a_new_run(tmp_path):
    ledger = tmp_path / "l.json"
    add(ledger, {"seeds": 3}, 100, 5)
    assert len(add(ledger, {"seeds": 5}, 100, 5)) == 1  # another run
    assert len(add(ledger, {"seeds": 5}, 50, None)) == 2  # continues: the last pass left 5 pending
    assert len(add(ledger, {"seeds": 5}, 50, None)) == 1  # nothing pending said: a run of its own
    add(ledger, {"seeds": 5}, 10, None, status="failed")
    assert len(add(ledger, {"seeds": 5}, 10, 0)) == 2  # a failed pass is resumed


def test_the_sweep_log_gives_each_sweeps_last_pending_count(tmp_path, monkeypatch):
    log = tmp_path / "sweeps.jsonl"
    assert pending_points(log) is None
    log_sweep("binary", 3, 2, 3, 1.0)  # no log named: nothing written
    assert not log.exists()
    monkeypatch.setenv(passes.SWEEP_LOG_ENV, str(log))
    log_sweep("binary", 3, 2, 3, 1.0)
    log_sweep("text", 1, 4, 1, 1.0)
    log_sweep("binary", 5, 0, 2, 1.0)  # the same sweep run again in the pass
    assert pending_points(log) == 4
    assert json.loads(log.read_text().splitlines()[0]) == {"sweep": "binary", "done": 3, "pending": 2,
                                                           "computed": 3, "wall_s": 1.0}


def test_totals_add_passes_and_sections_and_say_when_a_pass_was_not_timed():
    whole = {"wall_s": 19.0, "passes": [{"wall_s": 2998.0}, {"wall_s": 2937.0}, {"wall_s": 2826.0},
                                        {"wall_s": 1501.0}]}
    assert total_s(whole) == (10262.0, True)
    assert describe(whole) == "2.9 h in 4 passes"
    with_section = {"wall_s": 24.0, "sections": {"fig3": {"passes": [{"wall_s": None}, {"wall_s": 4491.7}]}}}
    assert total_s(with_section) == (pytest.approx(4515.7), False)
    assert describe(with_section) == "at least 75 min in 3 passes"
    # a provenance from before passes were recorded is its one pass
    assert describe({"wall_s": 42.0}) == "42 s"


@pytest.mark.parametrize("seconds, shown", [(42, "42 s"), (1500, "25 min"), (10262, "2.9 h")])
def test_durations(seconds, shown):
    assert duration(seconds) == shown


def test_the_sweep_log_is_named_for_the_context_only(tmp_path, monkeypatch):
    from seqmi.passes import sweep_log

    monkeypatch.delenv(passes.SWEEP_LOG_ENV, raising=False)
    with sweep_log(tmp_path / "a.jsonl"):
        log_sweep("binary", 1, 0, 1, 0.1)
    assert pending_points(tmp_path / "a.jsonl") == 0 and passes.SWEEP_LOG_ENV not in os.environ
    monkeypatch.setenv(passes.SWEEP_LOG_ENV, "outer.jsonl")
    with pytest.raises(RuntimeError), sweep_log(tmp_path / "b.jsonl"):
        raise RuntimeError  # a failing pass puts the caller's value back too
    assert os.environ[passes.SWEEP_LOG_ENV] == "outer.jsonl"


def test_a_running_chapter_prints_each_finished_point_and_a_killed_one_says_which(tmp_path, monkeypatch, capsys):
    # the chapter's sweep finishes two points, then the run is killed (here: interrupted)
    from seqmi import book
    from seqmi.passes import log_point

    monkeypatch.setattr(book._running, "PROGRESS_POLL_S", 0.01)

    def killed(notebook, executed, parameters, root):
        log_point("binary", "rnn_2_1", 12.3, 1, 3)
        log_point("binary", "rnn_8_1", 45.6, 2, 2)
        time.sleep(0.2)  # the watcher reads them while the chapter runs
        raise KeyboardInterrupt

    monkeypatch.setattr(book._running, "run_notebook", killed)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        book.execute(book.find_root(Path(__file__).parent), "quick", ["00_mutual_information"], out=out)
    printed = capsys.readouterr().out
    assert "[quick] 00_mutual_information binary: rnn_8_1 in 45.6 s (2 done, 2 pending)" in printed
    provenance = json.loads((out / "artifacts" / "00_mutual_information" / "provenance.json").read_text())
    assert provenance["status"] == "running" and provenance["points_finished"] == ["binary/rnn_2_1", "binary/rnn_8_1"]
    # a pass cut short is resumed from its last finished point
    assert pending_points(out / "artifacts" / "00_mutual_information" / "sweeps.jsonl") == 2


def test_point_lines_read_whole_lines_only(tmp_path):
    from seqmi.passes import point_lines

    log = tmp_path / "sweeps.jsonl"
    log.write_text('{"sweep": "a", "point": "p", "seconds": 1, "done": 1, "pending": 0}\n'
                   '{"sweep": "a", "done": 1, "pending": 0, "computed": 1, "wall_s": 1}\n{"sweep": "a", "po')
    lines, at = point_lines(log)
    assert [line["point"] for line in lines] == ["p"] and point_lines(log, at) == ([], at)
    assert point_lines(tmp_path / "none.jsonl") == ([], 0)
